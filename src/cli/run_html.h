// `rjsim show --format html`: a stored run as one self-contained HTML page (no script, no
// external file, so it opens offline and can be attached to a CI run): the run's header, its
// swimlanes drawn as SVG (cli/swimlane_svg.h; with a violation, the steps around it, and the whole
// run one click away), its persisted transitions, each violation with the steps that led to it
// (anchored #violation-K), the transition graph drawn as SVG with its Mermaid source, and the
// whole timeline as a table whose rows are anchored by seq (#seq-42), with transitions and
// violations marked. Every text from the log is escaped (cli/junit.h's xml_text:
// its character references are HTML's too).
#pragma once

#include <string>
#include <vector>

#include "cli/run_record.h"
#include "cli/violation_excerpt.h"
#include "store/database.h"

namespace rjsim::cli {

// The page of `run`, whose events `database` holds; `excerpts` are its violations' (in order).
std::string run_html(const RunRecord& run, const std::vector<ViolationExcerpt>& excerpts,
                     const store::Database& database);

}  // namespace rjsim::cli
