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
// carries (the root package's embed), then builds with an -overlay that
// maps every protected path to its pristine copy (written to a temporary
// directory) and every protected file the kata does not have (an extra
// _test.go in an exercise, a new file in harness/) to nothing. The
// overlay also applies to files the harness embeds (course.yaml, so the
// points too). The changed files are listed in every format, those that
// could reach a graded test binary: go.mod, go.sum, the exercises' test
// files, and the files of the harness packages those tests import,
// directly or not (read from the pristine copies; an edit to another
// harness package is put back too, but not reported). The kata's own
// command, cmd/kata, is not protected: grading runs the kata binary,
// never the copy's. After the run the protected files are compared again;
// if one changed while grading, no step of that run earns anything.
//
// # Imports
//
// The module requires k8s.io/apimachinery and go.etcd.io/etcd for the
// harness (harness/protoedge, harness/storage/etcdstore), so a student
// copy has them, and working answers with them: exercise 02's selectors
// are apimachinery's labels, and etcdembed passes the whole store suite
// of exercise 03 (DESIGN.md rule 10). So before anything of the learner's
// is built, Run lists the graded packages with go list -deps, under the
// same overlay and scrubbed environment as the builds, and reads the
// direct imports of the non-test files of each graded package and of
// every package of its own below it that it imports. They may import
// only (AllowedImport, imports.go, one table with the reason for each
// entry):
//
//  1. the standard library, but unsafe (its //go:linkname calls any
//     function linked into the program, such as the harness's internal
//     label parser, and its pointers read unexported fields) and plugin
//     (loads code built elsewhere);
//  2. packages under harness/, except those that implement a component
//     or run a cluster, each with the packages below it:
//     harness/storage/etcdstore, harness/protoedge, harness/cluster,
//     harness/remote, harness/scenario, and every suite (a path element
//     ending in "test": harness/storetest, harness/client/clienttest);
//  3. the modules go.etcd.io/bbolt and sigs.k8s.io/yaml;
//  4. the exercise's own packages below it, held to the same rule.
//
// Nothing else: no k8s.io/..., go.etcd.io/etcd/..., golang.org/x/...,
// another exercise, solutions/ or cmd/. Nor cgo (import "C", the way a
// constructor runs before main) or any source go would compile or link
// that is not Go (C, C++, assembly, SWIG, .syso objects). An exercise that
// breaks the rule is not built at all; each of its steps is an error
// whose message names the package, the imports and the rule
// (ImportRule), and the table repeats it under the exercise; the other
// exercises are graded as usual. With --solutions the rule applies to
// solutions/, and kata verify checks both directories against the same
// table.
//
// # Isolation
//
// The learner's code never runs in the process that decides. For every
// exercise harness/remote binds (all of them), Run generates two
// programs and places them through the overlay under
// harness/internal/kata, a path no copy has: the learner's program
// (remote.ImplMain: a main that imports the learner's package and serves
// its contract, built with go build) and the grader (remote.GradeTest: the
// exercise's unchanged suite run against a client of that contract, built
// with go test -c in a package that holds only generated test files, so
// that its binary links the pristine harness and nothing of the
// learner's). Both are built before any of the learner's code runs, and
// only for exercises whose imports obey the rule above. Run
// then starts each grader binary itself, not through the go command, with
// -test.v=test2json, and reads verdicts only from the lines the testing
// package frames with its \x16 byte (gotest.ParseFramed); the grader
// starts the learner's program ($KATA_IMPL), and everything the program
// prints reaches the grader as escaped text, shown to the learner as the
// step's output, never parsed. The rest is defence in depth:
//
//   - go runs with a scrubbed environment: GOTOOLCHAIN=local (a go.mod
//     toolchain line cannot choose another toolchain), GOENV=off, GOFLAGS
//     of kata's own (-mod=readonly -buildvcs=false -trimpath: no vendor
//     directory, no git run in the learner's checkout, no caller's
//     -toolexec), GOWORK=off; only the variables that locate the
//     toolchain, the caches and the module proxy are passed on.
//   - The grader runs with an environment of four variables (PATH, HOME
//     and TMPDIR in a fresh directory of its own, KATA_IMPL), which the
//     learner's program inherits: no CI variables (GITHUB_ENV,
//     GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, tokens), no cache paths.
//   - On Linux kata and every grader are non-dumpable (prctl
//     PR_SET_DUMPABLE 0), so code of the same user cannot open
//     /proc/<pid>/fd of either: the pipe the verdicts travel on is held
//     by those two processes only.
//   - When kata runs as root (CI, Classroom), the grader and the
//     learner's program run as nobody (65534), in a directory nobody
//     owns: they can write neither kata's binary, the toolchain, the
//     module and build caches, nor the CI's files. Not root, kata cannot
//     switch users and both run as kata's own user.
//   - The builds share kata's build cache rather than a fresh one per
//     submission: the learner's code does not run while they do, and a
//     fresh cache compiles the standard library again (20 s for one
//     exercise on two cores, against about 1 s warm). The module cache
//     stays read-only to go (no -modcacherw). The graders themselves
//     are kept between runs in kata's user cache directory
//     (kata/graders, the 16 most recently used), keyed by a hash of
//     everything they are built from: the pristine files, the generated
//     tests, the go command and its environment.
//
// # Capstone
//
// The course's capstone (course.Capstone) is graded after the exercises,
// reported as one more exercise, "capstone", with a step per story. A
// story is worth its points when its scenario passes on the cluster built
// from the exercises graded done in the same run (every step passed,
// isolated, the whole exercise graded): naming "capstone" or a story
// ("capstone/01-pod-relay") also selects, whole, the exercises it needs.
// A story with an exercise not done fails without running and says which.
// The others run like an exercise's grader (capstone.go): the cluster
// program (harness/cluster/program's Wiring.Source for the done parts)
// and the scenario grader (a generated test that runs the pristine
// harness/scenario engine) are built under the same overlay before any
// of the learner's code runs; the scenarios are the kata's own copies
// (the root package's embed of testdata/scenarios), written to the
// grader's directory, never read from the copy; the grader runs with the
// same four-variable environment and user, plus the cluster program's and
// the scenarios' paths. The learner's code runs only in the cluster
// program, which the grader starts and talks to over HTTP as kubectl
// would. Every scenario command has its own deadline; the grader has
// CapstoneTimeout, and a story it had not finished is an error.
//
// # Crashes and hangs
//
// Every step has its own deadline (harness/suite), every call into the
// learner's program its own (harness/remote: a hanging program is killed
// and the next call starts a fresh one), the grader binary runs with
// -test.timeout (PackageTimeout, default 3m), and the whole run is bounded
// by Timeout (default 10m). A step that leaves through runtime.Goexit
// fails with "the implementation called runtime.Goexit". Which verdicts
// stand when a test binary crashes or times out depends on who could
// have written them: every verdict an isolated grader printed stands (only
// the pristine harness writes to its stdout), and the steps it had not
// finished earn nothing; a binary that holds the learner's code (an
// exercise without a binding, graded the old way with go test and listed
// as "not isolated", which runs with kata's own rights, root included)
// and does not finish by itself earns nothing at all,
// because the code that crashed it could have printed the passes before.
// A crash or exit of the learner's program is not a crash of the grader:
// it fails the calls it broke, so it costs only that exercise's steps.
//
// With --solutions (for maintainers), solutions/NN are graded instead of
// exercises/NN, with the exercise's pristine test files (they are the
// same file by rule).
//
// # What is and is not stopped
//
// A teacher can rely on this: with a kata built elsewhere (never `go run
// ./cmd/kata` in the student's checkout, which rebuilds from the
// student's files), edited tests, harness, go.mod, go.work, vendor/,
// symlinks, forged output in any framing, exits, crashes, hangs, Goexit,
// cgo constructors, imports of a working answer (k8s.io/...,
// go.etcd.io/etcd/..., the harness's components and suites), writes to
// the grader's descriptors, a toolchain line and the caller's GOFLAGS
// all earn nothing, and the Classroom workflow
// below computes every verdict before any student code runs. What is not
// stopped: run as a user other than root, the learner's program has that
// user's rights, so it can change that user's files (the build and module
// caches, the kept graders, a kata binary it can find, ~/.config) and so
// the grades of later runs on the same account; grade each submission on
// a fresh machine or container, or as root. As root, the learner's
// program shares the user nobody with its grader, so it can stop the
// grader (the steps not yet finished then earn nothing, which gains it
// nothing); it still reaches the network, can use CPU and memory until
// its deadlines, and a process of its that leaves its process group
// (setsid) is not killed at the end of the run; the rule on imports
// reads import paths, so a learner's program that starts a binary
// committed to the copy (os/exec, os.StartProcess) is not refused, and
// reflect still reads the unexported fields of the harness's values (no
// harness value an exercise can reach holds an answer in a field reflect
// can use: harness/client's Selector keeps only a closure, which reflect
// cannot call, but a new harness type could break this); `--isolate
// container` (no network, resource limits) is
// not implemented, so kata refuses it. A student who edits the Classroom
// workflow itself (its max-score, its command, the pinned version)
// changes what Classroom records; that is GitHub Classroom's design: a
// teacher who needs certainty checks that .github/ is unchanged since the
// template, or runs `kata grade` with a pinned kata on the submitted
// repositories.
//
// # GitHub Classroom
//
// The workflow (Workflow, `kata classroom init`) checks out the code,
// installs kata pinned to a version with `go install
// <module>/cmd/kata@<version>` into the runner's temporary directory, and
// then, in one step, grades every exercise once with that binary, as root
// (sudo), `--format classroom` into a file, and writes the result to the
// step's output. autograding-grading-reporter reads it (KATA_RESULTS) and
// sends Classroom the sum of the tests' scores: one test per kata step,
// worth its points, so Classroom's total is kata's. No step before the
// grade runs the student's code, and no step after it runs anything but
// the reporter, so nothing the student wrote can change a verdict once it
// is computed. The class must start from a copy of the same version
// (`kata classroom export`), so that the pinned harness is the one the
// exercises were written against.
//
// The official autograding-command-grader is no longer used: it scores a
// command all or nothing, which took one grader step per kata step, each
// running kata again after the student's code had run in earlier steps.
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
