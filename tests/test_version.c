/* The version in one place: ossa_version(), the OSSA_VERSION_* macros and meson.build's
 * project version agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/archive.h"
#include "test_util.h"

static void test_version_matches_macros(void **state)
{
    (void)state;
    char expected[64];
    snprintf(expected, sizeof expected, "%d.%d.%d", OSSA_VERSION_MAJOR, OSSA_VERSION_MINOR, OSSA_VERSION_PATCH);
    assert_non_null(ossa_version());
    assert_string_equal(ossa_version(), expected);
    assert_string_equal(OSSA_VERSION_STRING, expected);
}

/* The project version as meson.build writes it (version: 'X.Y.Z'), read from the source. */
static void test_version_is_meson_builds(void **state)
{
    (void)state;
    const char *root = getenv("OSSA_SOURCE_DIR");
    if (!root || !*root) {
        print_message("skipped: OSSA_SOURCE_DIR is not set\n");
        skip();
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/meson.build", root);
    size_t size = 0;
    char *text = ossa_test_read_file(path, &size);
    assert_non_null(text);
    char *copy = malloc(size + 1);
    assert_non_null(copy);
    memcpy(copy, text, size);
    copy[size] = '\0';
    /* project()'s own "version:", not "meson_version:". */
    const char *at = strstr(copy, "project(");
    assert_non_null(at);
    do {
        at = strstr(at + 1, "version: '");
    } while (at && at[-1] != ' ' && at[-1] != '\n');
    assert_non_null(at);
    at += strlen("version: '");
    const size_t length = strcspn(at, "'");
    assert_true(length > 0 && length < 32);
    char version[32];
    memcpy(version, at, length);
    version[length] = '\0';
    assert_string_equal(ossa_version(), version);
    free(copy);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_matches_macros),
        cmocka_unit_test(test_version_is_meson_builds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
