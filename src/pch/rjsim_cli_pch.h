// The precompiled header of the cli target: every target's (rjsim_pch.h) and CLI11, which every
// subcommand's file includes through cli/subcommand.h and which was most of their compile time.
#include "rjsim_pch.h"

#include <CLI/CLI.hpp>
