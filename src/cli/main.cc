// rjsim: the command-line entry point. Everything happens in run_cli (cli/cli.h).
#include "cli/cli.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return rjsim::cli::run_cli(std::move(args), std::cout, std::cerr);
}
