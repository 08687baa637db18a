// The doctest entry point for every rjsim test (unit and integration). Before the run it says
// once why the "KubeRay samples: ..." test cases are skipped, when they are.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

#include "kuberay_manifests.h"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  if (!rjsim::testing::kuberay_samples_present()) {
    std::cout << "rjsim_tests: skipping the test cases named \"KubeRay samples: ...\": no KubeRay samples at "
              << rjsim::testing::kuberay_samples_dir().string()
              << " (set RJSIM_SHARED_DIR to the folder that holds trace-samples/); the own fixtures in "
                 "tests/fixtures/kuberay cover the same checks\n";
  }
  return context.run();
}
