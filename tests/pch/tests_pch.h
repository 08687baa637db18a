// The precompiled header of the test binary: what every rjsim target precompiles
// (src/pch/rjsim_pch.h), and doctest, which every test file includes. test_main.cc defines
// DOCTEST_CONFIG_IMPLEMENT and includes doctest again; doctest's implementation part is guarded
// apart from its interface for exactly that.

#include "../../src/pch/rjsim_pch.h"

#include <doctest/doctest.h>
