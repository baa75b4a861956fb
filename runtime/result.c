#include "ossa/result.h"

const char *ossa_result_string(ossa_result result)
{
    static const char *const messages[] = {
#define OSSA_RESULT_MESSAGE(name, msg) msg,
        OSSA_RESULT_LIST(OSSA_RESULT_MESSAGE)
#undef OSSA_RESULT_MESSAGE
    };
    if ((unsigned)result >= (unsigned)OSSA_RESULT_COUNT) return "unknown result";
    return messages[result];
}

const char *ossa_result_name(ossa_result result)
{
    static const char *const names[] = {
#define OSSA_RESULT_NAME(name, msg) #name,
        OSSA_RESULT_LIST(OSSA_RESULT_NAME)
#undef OSSA_RESULT_NAME
    };
    if ((unsigned)result >= (unsigned)OSSA_RESULT_COUNT) return "UNKNOWN";
    return names[result];
}
