// The run page in a real browser: headless Chromium (the Debian package `chromium`, which
// tools/setup installs) renders `rjsim show --format html` of the tour's counterexample, and the
// test reads the DOM it built (`--dump-dom`) and a screenshot of it. Without Chromium the test says
// so and checks nothing.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "recorded_runs.h"
#include "test_files.h"

namespace rjsim::cli::testing {
namespace browser_test {
namespace {

bool chromium_installed() { return std::system("command -v chromium > /dev/null 2>&1") == 0; }

using rjsim::testing::read_bytes;
using rjsim::testing::write_bytes;

// Runs headless Chromium on `page` with `what` (--dump-dom or --screenshot=...), its own profile
// in `scratch`, standard output to `output`. Returns the exit status.
int chromium(const ScratchDirectory& scratch, const std::string& what, const std::string& page,
             const std::string& output) {
  const std::string command = "timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
                              "--window-size=1400,1000 --user-data-dir=" +
                              scratch.file("profile") + " " + what + " file://" + page + " > " + output +
                              " 2> " + scratch.file("chromium.log");
  return std::system(command.c_str());
}

}  // namespace

TEST_CASE("the run page in headless Chromium: lanes drawn, the stale read marked with both versions, the violation linked") {
  if (!chromium_installed()) {
    MESSAGE("skipped: chromium is not installed (tools/setup installs it)");
    return;
  }
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
  const Result explored = invoke({"explore", bundled_scenario("explore/suspend-before-cluster-cached"), "--db", db});
  REQUIRE(explored.code == 1);
  const Result shown = invoke({"show", db, "--format", "html"});
  REQUIRE(shown.code == 0);
  const std::string page = scratch.file("run.html");
  write_bytes(page, shown.out);

  REQUIRE(chromium(scratch, "--dump-dom", page, scratch.file("dom.html")) == 0);
  const std::string dom = read_bytes(scratch.file("dom.html"));
  INFO(read_bytes(scratch.file("chromium.log")));
  CHECK(contains(dom, "<svg"));
  CHECK(contains(dom, "data-lane=\"controller\""));
  CHECK(contains(dom, "data-lane=\"informer/RayCluster\""));
  CHECK(contains(dom, "class=\"mark stale-read\""));
  CHECK(contains(dom, "RayCluster: cache rv 0, API rv "));
  CHECK(contains(dom, "class=\"held\""));
  CHECK(contains(dom, "href=\"#violation-0\""));
  CHECK(contains(dom, "id=\"violation-0\""));
  CHECK(contains(dom, "class=\"state-graph\""));

  // Not blank: the page's screenshot holds far more than an empty page's of the same size.
  const std::string blank = scratch.file("blank.html");
  write_bytes(blank, "<!DOCTYPE html><html><body></body></html>\n");
  REQUIRE(chromium(scratch, "--screenshot=" + scratch.file("run.png"), page, scratch.file("out.txt")) == 0);
  REQUIRE(chromium(scratch, "--screenshot=" + scratch.file("blank.png"), blank, scratch.file("out.txt")) == 0);
  const auto run_png = std::filesystem::file_size(scratch.file("run.png"));
  const auto blank_png = std::filesystem::file_size(scratch.file("blank.png"));
  CHECK(read_bytes(scratch.file("run.png")).starts_with("\x89PNG"));
  CHECK(run_png > 10 * blank_png);
}

}  // namespace browser_test
}  // namespace rjsim::cli::testing
