// The doctest entry point for every rjsim test (unit and integration).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
