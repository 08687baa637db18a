#include "kuberay_manifests.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace rjsim::testing {

namespace fs = std::filesystem;

std::vector<fs::path> ManifestSet::rayjob_files() const {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(rayjob_prefix, 0) == 0 && name != rayjob_v1alpha1 && entry.path().extension() == ".yaml") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ManifestSet::text(const std::string& file) const {
  std::ifstream in(path(file));
  REQUIRE_MESSAGE(in.good(), "cannot read " << path(file).string() << " (" << label << ")");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const ManifestSet& own_manifests() {
  static const ManifestSet set{
      "own fixtures",
      fs::path(RJSIM_SOURCE_DIR) / "tests" / "fixtures" / "kuberay",
      "rayjob-",
      "rayjob-sample.yaml",
      "rayjob-shutdown.yaml",
      "rayjob-interactive-mode.yaml",
      "rayjob-use-existing-raycluster.yaml",
      "rayjob-v1alpha1.yaml",
      "raycluster-sample.yaml",
  };
  return set;
}

fs::path kuberay_samples_dir() {
  const char* shared = std::getenv("RJSIM_SHARED_DIR");
  const fs::path root = shared != nullptr ? fs::path(shared) : fs::path("..") / "shared";
  return fs::absolute(root / "trace-samples" / "kuberay").lexically_normal();
}

bool kuberay_samples_present() { return fs::is_directory(kuberay_samples_dir()); }

const ManifestSet& kuberay_samples() {
  REQUIRE_MESSAGE(kuberay_samples_present(), "no KubeRay samples at " << kuberay_samples_dir().string()
                                                 << ": this test case needs skip_without_kuberay_samples()");
  static const ManifestSet set{
      "KubeRay samples",
      kuberay_samples_dir(),
      "ray-job.",
      "ray-job.sample.yaml",
      "ray-job.shutdown.yaml",
      "ray-job.interactive-mode.yaml",
      "ray-job.use-existing-raycluster.yaml",
      "ray_v1alpha1_rayjob.at-5cb3c73c.yaml",
      "ray-cluster.sample.yaml",
  };
  return set;
}

}  // namespace rjsim::testing
