#include "ossa/version.h"

const char *ossa_version(void) { return OSSA_VERSION_STRING; }
