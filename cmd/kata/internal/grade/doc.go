// Package grade is kata's grader: it runs the conformance suites with the
// kata's own pristine tests and harness, turns the steps into points from
// the course manifest, and writes the result in the formats graders read.
// It also writes the GitHub Classroom workflow and the student copy.
// `kata grade` and `kata classroom` (cmd/kata/internal/cli) are thin shells over it.
//
// # Points
//
// A step earns all of its manifest points when it passes, none otherwise
// (fail, error, or skipped). Points are whole numbers, so every format
// adds up to the same total: the table's "Total: P/M points", the JSON's
// points/max_points, the sum of the JUnit points properties, and the sum
// of the Classroom tests' score against its max_score.
//
// # Formats
//
//   - table (default): one line per exercise and per step, the protected
//     files that were ignored, and the total.
//   - json: Exercism's test-runner results.json, version 3: version,
//     status (pass; fail when a step failed or errored; error only when
//     no step ran, as when nothing compiles), message (only with error),
//     and tests in course order, each with name, status, message, output
//     (what the implementation printed itself, at most 500 characters),
//     test_code (the go test command that runs the step alone) and
//     task_id (the step's task number in the exercise README). Extension
//     keys, which Exercism's readers ignore: points and max_points at both
//     levels, exercise and step per test, tampered and note at the top.
//   - junit: JUnit XML, a testsuite per exercise and a testcase per step
//     with a failure (fail) or error (error) element and the points as
//     properties. Changed protected files are one more testsuite,
//     "protected-files", with a failed testcase per file.
//   - classroom: the base64 JSON that GitHub Classroom's
//     autograding-command-grader puts in its `result` output and
//     autograding-grading-reporter reads from <RUNNER>_RESULTS: version 1,
//     status, max_score, and tests with name, status, score, message,
//     test_code, filename, line_no and duration (milliseconds), as in the
//     grader's source. The reporter sends Classroom the sum of the scores.
//     Changed protected files are one more test, worth nothing.
//
// # Integrity
//
// Grading never trusts the copy's own tests or harness. The protected
// files are go.mod and go.sum, every file under harness/ except the
// harness's own _test.go files (they are never compiled into an
// exercise's test binary), and the *_test.go files of the graded exercise
// packages. Run compares them with the pristine copies the kata binary
// carries (the root package's embed), then runs go test with an -overlay
// that maps every protected path to its pristine copy (written to a
// temporary directory) and every protected file the kata does not have
// (an extra _test.go in an exercise, a new file in harness/) to nothing.
// The overlay also applies to files the harness embeds (course.yaml, so the
// points too). go runs with GOWORK=off and -mod=readonly, so neither a
// go.work nor a vendor directory can swap a dependency such as testify;
// the dependencies are the kata's, so an exercise cannot add a module.
// A test that passes only because of an edit cannot pass: it runs as the
// kata shipped it. The changed files are listed in every format, those
// that could reach a graded test binary: go.mod, go.sum, the exercises'
// test files, and the files of the harness packages those tests import,
// directly or not (read from the pristine copies; an edit to another
// harness package is put back too, but not reported). The kata's own
// command, cmd/kata, is not protected: grading runs the kata binary, never
// the copy's.
//
// After the run the protected files are compared again; if the tests
// themselves changed one (a learner's package can write files while its
// test binary runs, and a later package might compile the change), no
// step of that run earns anything, and the report says why.
//
// With --solutions (for maintainers), solutions/NN are graded instead of
// exercises/NN, with the exercise's pristine test files (they are the
// same file by rule).
//
// What this does not stop, stated plainly: the learner's own package is
// compiled into the test binary and runs with the user's rights. Code in
// it can print forged test2json lines, exit the process, read or write
// any file, or change the user's go environment for later runs. The
// grader keeps honest learners honest and makes editing a test pointless;
// it is not a sandbox. In GitHub Classroom the same holds for every
// language's autograder: student code runs inside the grading job.
//
// The Classroom workflow itself lives in the student's repository, so a
// student who edits it (a max-score, a command, the pinned version) can
// change what Classroom records; that is GitHub Classroom's design, not
// something a grader inside the workflow can prevent. A teacher who needs
// certainty checks that .github/ is unchanged since the template and runs
// `kata grade` with a pinned kata on the submitted repositories.
//
// "Pristine" means the files the kata binary was built from: `go run
// ./cmd/kata` in a checkout rebuilds from the working tree, edits
// included, so a grade meant to be trusted runs a kata built elsewhere.
//
// # GitHub Classroom
//
// The workflow (Workflow, `kata classroom init`) installs kata pinned to
// a version with `go install <module>/cmd/kata@<version>` into the
// runner's temporary directory and grades with that binary, never with
// the student's cmd/kata or its embed, which the student can edit. The
// class must start from a copy of the same version (`kata classroom
// export`), so that the pinned harness is the one the exercises were
// written against.
//
// autograding-command-grader scores all or nothing: max-score when the
// command exits 0, else 0. One grader step per exercise would give a
// student with 4 of 5 steps done nothing for that exercise, so the
// workflow has one grader step per kata step, worth that step's points,
// running `kata grade EXERCISE/STEP` (which exits 0 only when that step
// passes). Classroom's total is then exactly kata's. The steps' ids are
// "ex" + exercise id + "-" + step id (a step id must start with a
// letter), and the reporter gets each result as <ID>_RESULTS. An
// ungraded first step prints the whole table and warms the build cache,
// so each grader step costs one cached build and one test binary run
// (about 1.5 s each, measured on two busy cores).
//
// The alternative, one plain `run:` step that writes
// `result=$(kata grade --format classroom)` to $GITHUB_OUTPUT for the
// reporter, grades in one go test run and also sends Classroom the right
// total (the reporter adds up the scores), but the reporter's console
// table scores runners by the share of tests passed, not by points, and
// the official command grader is what Classroom documents; it stays available
// through --format classroom for teachers who prefer it.
//
// # Deadlines
//
// Every step has its own deadline (harness/suite), so a hanging call
// costs that step. go test runs each exercise's binary with -timeout
// (PackageTimeout, default 3m) for code that hangs outside a step, and
// the whole run is bounded by Timeout (default 10m). When a test binary
// crashes or is stopped, the steps that had finished keep their verdict
// and the others get status error and no points.
//
// # Student copy
//
// Export writes the pristine exercises and harness (never the teacher's
// own work in exercises/), go.mod and go.sum, and the checkout's other
// files, without solutions/, dot-directories (.git, .kata, the kata's own
// CI, which needs solutions/), go.work, built binaries, and Go files that
// import solutions/ (harness tests that check a suite against the
// reference). Before writing, it refuses if any file would be a solution
// file or share three or more distinctive code lines with one. The copy
// builds and vets, `kata next` starts at the first step, and `kata grade`
// gives 0 points.
package grade
