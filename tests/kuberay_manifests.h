// The KubeRay manifests the tests build scenarios and recorded objects from. Two sets fill the
// same roles under the same metadata names: the project's own fixtures in tests/fixtures/kuberay
// (always there), and KubeRay's real samples in $RJSIM_SHARED_DIR/trace-samples/kuberay (read in
// place, never copied), present in CI and absent from a lone clone. A test case that reads the
// real samples is named "KubeRay samples: ..." and carries `skip_without_kuberay_samples()`, so
// a clone with nothing beside it reports it skipped (test_main.cc says why, once).
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace rjsim::testing {

struct ManifestSet {
  std::string label;                    // "own fixtures" or "KubeRay samples", for messages
  std::filesystem::path dir;
  std::string rayjob_prefix;            // every ray.io/v1 RayJob file's name starts with it
  std::string rayjob;                   // rayjob-sample: a RayJob and a ConfigMap in one file
  std::string rayjob_shutdown;          // rayjob-sample-shutdown: shutdownAfterJobFinishes, TTL 10 s
  std::string rayjob_interactive;       // rayjob-interactive-mode: InteractiveMode, no entrypoint
  std::string rayjob_existing_cluster;  // rayjob-use-existing-raycluster: clusterSelector
  std::string rayjob_v1alpha1;          // rayjob-sample under ray.io/v1alpha1
  std::string raycluster;               // raycluster-kuberay

  std::filesystem::path path(const std::string& file) const { return dir / file; }
  // The set's ray.io/v1 RayJob files, sorted.
  std::vector<std::filesystem::path> rayjob_files() const;
  // The file's whole text; a test that cannot read it fails, naming the file.
  std::string text(const std::string& file) const;
};

const ManifestSet& own_manifests();

// Where the real samples are looked for: $RJSIM_SHARED_DIR/trace-samples/kuberay (meson test and
// tools/test set it), else ../shared/trace-samples/kuberay from the working directory.
std::filesystem::path kuberay_samples_dir();
bool kuberay_samples_present();
// The real samples; only for test cases that carry skip_without_kuberay_samples().
const ManifestSet& kuberay_samples();

// The decorator of every "KubeRay samples: ..." test case.
inline doctest::skip skip_without_kuberay_samples() { return doctest::skip(!kuberay_samples_present()); }

}  // namespace rjsim::testing
