package grade

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/course"
)

// Remote is what isolating an exercise needs from harness/remote: the
// source of the learner's program (a main that imports the learner's
// package and serves its contract) and of the grader's test (the
// exercise's suite run against that program through $EnvImpl).
type Remote struct {
	// ImplMain is remote.ImplMain.
	ImplMain func(exercise, importPath string) ([]byte, error)
	// GradeTest is remote.GradeTest.
	GradeTest func(exercise, pkg string) ([]byte, error)
	// Exercises are the exercises with bindings (remote.Exercises()).
	Exercises []string
	// EnvImpl is remote.EnvImpl, the variable that names the learner's
	// program for the grader's test binary.
	EnvImpl string
}

// Isolation levels for Options.Isolate.
const (
	// IsolateProcess runs the learner's code in a program of its own,
	// as an unprivileged user when kata runs as root (the default).
	IsolateProcess = "process"
	// IsolateContainer would run it in a container with no network; no
	// engine is supported yet, so it is refused.
	IsolateContainer = "container"
)

// ErrNoContainer is the refusal of --isolate container.
var ErrNoContainer = errors.New("grade: --isolate container is not supported: kata cannot yet run the learner's program in a container; " +
	"grade with --isolate process (the default), as root so that the learner's program runs as an unprivileged user, " +
	"or run the whole of kata grade inside a throwaway container or VM per submission")

// The generated packages live where no copy has files: under the
// harness's internal directory, so that the import path is valid and a
// file a learner puts there is one more protected file the overlay
// removes. The grader's package holds only the generated test files, so
// its test binary links the pristine harness and nothing of the learner's.
const (
	implDir   = "harness/internal/kata/impl"
	graderDir = "harness/internal/kata/grade"
	// graderPkg is the package name of the grader's test.
	graderPkg = "katagrade"
)

// nodumpTest is added to every grader package: on Linux the grader's test
// binary makes itself non-dumpable before any test runs, so that the
// learner's program, even as the same user, cannot open
// /proc/<pid>/fd/1 of the binary whose output is the verdict (proc(5):
// access to /proc/<pid>/fd is governed by a ptrace access mode check,
// which a non-dumpable process fails for other processes without
// CAP_SYS_PTRACE).
const nodumpTest = `//go:build linux

package ` + graderPkg + `

import "syscall"

// PR_SET_DUMPABLE is 4 in linux/prctl.h.
func init() { syscall.RawSyscall(syscall.SYS_PRCTL, 4, 0, 0) }
`

// isolated grades the exercises of sel that have bindings: it builds every
// learner's program (go build) and every grader's test binary (go test -c)
// before any of the learner's code runs, then runs each grader binary
// itself, never through the go command, with a whole environment of its
// own. The packages it returns are keyed by the graded package's import
// path, as go test's would be.
func isolated(ctx context.Context, opts Options, prot *protection, tmp string, sel []Selection, dir string, runAs *gotest.User) (map[string]*gotest.Package, error) {
	r := opts.Remote
	bin := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, fmt.Errorf("grade: %w", err)
	}
	gen := map[string][]byte{} // module-relative path -> generated source
	var implPkgs []string
	for _, s := range sel {
		e := s.Exercise
		ip := course.ModulePath + "/" + dir + "/" + e.ID
		main, err := r.ImplMain(e.ID, ip)
		if err != nil {
			return nil, fmt.Errorf("grade: generating the program of %s: %w", e.ID, err)
		}
		test, err := r.GradeTest(e.ID, graderPkg)
		if err != nil {
			return nil, fmt.Errorf("grade: generating the grader of %s: %w", e.ID, err)
		}
		gen[implDir+"/"+e.ID+"/main.go"] = main
		gen[graderDir+"/"+e.ID+"/grade_test.go"] = test
		gen[graderDir+"/"+e.ID+"/nodump_test.go"] = []byte(nodumpTest)
		implPkgs = append(implPkgs, "./"+implDir+"/"+e.ID)
	}
	overlay, err := prot.writeOverlay(tmp, gen)
	if err != nil {
		return nil, err
	}

	// Both builds run as kata's user, before any learner code runs, with
	// a scrubbed environment (goEnv): nothing of the learner's executes
	// while they run.
	env := goEnv(opts.Root)
	var ids []string
	for _, s := range sel {
		ids = append(ids, s.Exercise.ID)
	}
	// The graders kept from an earlier run are used as they are; only
	// the others are built.
	cache := graderCache()
	keys, err := graderKeys(opts.Pristine, gen, env, ids)
	if err != nil {
		cache = ""
	}
	var toBuild []string // exercise ids
	for _, id := range ids {
		if !fromGraderCache(cache, keys[id], bin, id) {
			toBuild = append(toBuild, id)
		}
	}
	var buildPkgs []string
	for _, id := range toBuild {
		buildPkgs = append(buildPkgs, "./"+graderDir+"/"+id)
	}
	// No debug information (-s -w): panics still name file and line
	// (from the symbol table Go keeps), and linking is faster.
	ldflags := "-ldflags=-s -w"
	var wg sync.WaitGroup
	var implOut, gradeOut []byte
	var implErr, gradeErr error
	implFailed := map[string]string{} // graded import path -> build output
	wg.Add(1)
	go func() {
		defer wg.Done()
		implOut, implErr = goCmd(ctx, opts.Root, env, append([]string{"build", ldflags, "-json", "-overlay=" + overlay, "-o", bin + string(filepath.Separator)}, implPkgs...)...)
	}()
	if len(buildPkgs) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gradeOut, gradeErr = goCmd(ctx, opts.Root, env, append([]string{"test", "-c", ldflags, "-vet=off", "-overlay=" + overlay, "-o", bin + string(filepath.Separator)}, buildPkgs...)...)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("grade: %w", ctx.Err())
	}
	if errors.Is(gradeErr, exec.ErrNotFound) || errors.Is(implErr, exec.ErrNotFound) {
		return nil, errors.New(strings.TrimPrefix(gotest.ErrNoGo.Error(), "gotest: "))
	}
	if gradeErr != nil {
		// The grader is built from the pristine harness only: if it does
		// not build, the kata is broken, not the learner's work.
		return nil, fmt.Errorf("grade: building the graders (the kata's own code) failed: %v\n%s", gradeErr, strings.TrimSpace(string(gradeOut)))
	}
	for _, id := range toBuild {
		toGraderCache(cache, keys[id], bin, id)
	}
	built, err := gotest.Parse(strings.NewReader(string(implOut)))
	if err != nil {
		return nil, err
	}
	for _, s := range sel {
		// A program that was not written did not build; its lines are
		// those of the learner's packages (go build -json names the
		// package that failed, not the main that imports it).
		if _, err := os.Stat(filepath.Join(bin, s.Exercise.ID)); err == nil {
			continue
		}
		ip := course.ModulePath + "/" + dir + "/" + s.Exercise.ID
		var lines []string
		for _, path := range built.ImportPaths() {
			if path == ip || strings.HasPrefix(path, ip+"/") {
				lines = append(lines, built.Packages[path].BuildOutput)
			}
		}
		if len(lines) == 0 {
			lines = append(lines, "the program did not build:\n"+string(implOut))
		}
		implFailed[ip] = strings.Join(lines, "")
	}

	// Where the graders run: a directory of their own, owned by the user
	// they run as.
	if runAs != nil {
		// The unprivileged user must reach the binaries.
		for _, d := range []string{tmp, bin} {
			if err := os.Chmod(d, 0o755); err != nil {
				return nil, fmt.Errorf("grade: %w", err)
			}
		}
	}
	out := map[string]*gotest.Package{}
	var mu sync.Mutex
	sem := make(chan struct{}, max(1, runtime.NumCPU()))
	for _, s := range sel {
		e := s.Exercise
		ip := course.ModulePath + "/" + dir + "/" + e.ID
		if msg, bad := implFailed[ip]; bad {
			out[ip] = &gotest.Package{ImportPath: ip, BuildFailed: true, BuildOutput: learnerBuildOutput(msg), Tests: map[string]*gotest.Test{}}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			p, err := runGrader(ctx, opts, s, ip, tmp, bin, runAs)
			if err != nil {
				// This exercise's grader did not run: its steps did not
				// run either, and say why.
				if p == nil {
					p = &gotest.Package{ImportPath: ip, Tests: map[string]*gotest.Test{}}
				}
				p.Output += strings.TrimPrefix(err.Error(), "gotest: ") + "\n"
			}
			mu.Lock()
			defer mu.Unlock()
			out[ip] = p
		}()
	}
	wg.Wait()
	return out, nil
}

// learnerBuildOutput keeps the compiler's lines about the learner's code,
// without the generated main's package header.
func learnerBuildOutput(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "# ") && strings.Contains(line, implDir) {
			continue
		}
		keep = append(keep, line)
	}
	return strings.TrimSpace(strings.Join(keep, "\n")) + "\n"
}

// runGrader runs one exercise's grader binary and reads its verdicts.
func runGrader(ctx context.Context, opts Options, s Selection, ip, tmp, bin string, runAs *gotest.User) (*gotest.Package, error) {
	e := s.Exercise
	work := filepath.Join(tmp, "run", e.ID)
	if err := os.MkdirAll(filepath.Join(work, "tmp"), 0o700); err != nil {
		return nil, fmt.Errorf("grade: %w", err)
	}
	if runAs != nil {
		for _, d := range []string{work, filepath.Join(work, "tmp")} {
			if err := os.Chown(d, int(runAs.UID), int(runAs.GID)); err != nil {
				return nil, fmt.Errorf("grade: %w", err)
			}
		}
		if err := os.Chmod(filepath.Dir(work), 0o755); err != nil {
			return nil, fmt.Errorf("grade: %w", err)
		}
	}
	run := "^" + regexp.QuoteMeta(e.Test) + "$"
	if s.Steps != nil {
		var q []string
		for _, id := range s.Steps {
			q = append(q, regexp.QuoteMeta(id))
		}
		run += "/^(" + strings.Join(q, "|") + ")$"
	}
	p, err := gotest.RunBinary(ctx, gotest.BinaryOptions{
		Path:       filepath.Join(bin, e.ID+".test"),
		ImportPath: ip,
		Dir:        work,
		Run:        run,
		Timeout:    opts.PackageTimeout,
		Env:        graderEnv(work, opts.Remote.EnvImpl, filepath.Join(bin, e.ID)),
		User:       runAs,
		Stderr:     opts.Stderr,
	})
	return p, err
}

// graderEnv is the whole environment of a grader's test binary, which the
// learner's program inherits: where it works, and where the learner's
// program is. Nothing of kata's own environment (the go caches, CI
// variables such as GITHUB_ENV and GITHUB_OUTPUT, tokens) is passed on.
func graderEnv(work, envImpl, impl string) []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + work,
		"TMPDIR=" + filepath.Join(work, "tmp"),
		envImpl + "=" + impl,
	}
}

// goEnvKeep are the variables of kata's environment the go command may
// see: where the toolchain and the caches are, and how to reach the
// module proxy. Everything else is dropped (GOFLAGS such as -toolexec,
// GOENV, GOEXPERIMENT, CC and CGO_*FLAGS, GIT_*, CI variables).
var goEnvKeep = []string{
	"PATH", "HOME", "USER", "LOGNAME", "TMPDIR",
	"GOROOT", "GOPATH", "GOMODCACHE", "GOCACHE", "XDG_CACHE_HOME",
	"GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE", "GONOPROXY",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	// Windows and macOS need these to find the caches and temp files.
	"SYSTEMROOT", "LOCALAPPDATA", "APPDATA", "USERPROFILE", "TEMP", "TMP",
}

// goEnv is the whole environment of the go commands that build what is
// graded: kata's own, scrubbed to goEnvKeep, then
//   - GOTOOLCHAIN=local: the toolchain is the one on PATH, whatever a
//     go.mod toolchain or go line asks for (go reads those from disk,
//     before the overlay applies);
//   - GOENV=off: no go env file (which could set GOFLAGS);
//   - GOFLAGS=-mod=readonly -buildvcs=false -trimpath: go.mod and go.sum
//     are the kata's, no vendor directory, no git run in the learner's
//     checkout (whose .git/config is the learner's) to stamp a build,
//     and no checkout path in what is compiled, so that every copy of
//     the course shares the build cache;
//   - GOWORK=off: no go.work of the learner's;
//   - PWD: go resolves the overlay's paths against it.
func goEnv(root string) []string {
	var env []string
	for _, k := range goEnvKeep {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return append(env,
		"GOTOOLCHAIN=local",
		"GOENV=off",
		"GOFLAGS=-mod=readonly -buildvcs=false -trimpath",
		"GOWORK=off",
		"PWD="+root,
	)
}

// goCmd runs the go command in dir with exactly env and returns its
// combined output.
func goCmd(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	return cmd.CombinedOutput()
}

// TempRoot is where a grade run makes its temporary directory: the
// system's, unless runAs is set and cannot reach it (a TMPDIR inside a
// directory only kata's user may enter), then /tmp.
func TempRoot(runAs *gotest.User) (string, error) {
	dir := os.TempDir()
	if runAs == nil || reachable(dir) {
		return dir, nil
	}
	if reachable("/tmp") {
		return "/tmp", nil
	}
	return "", fmt.Errorf("grade: the learner's code runs as user %d, which cannot reach %s or /tmp; set TMPDIR to a directory every user may enter", runAs.UID, dir)
}

// reachable says whether any user may enter dir and every directory above
// it.
func reachable(dir string) bool {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for {
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return true
		}
		dir = parent
	}
}

// unprivileged is the user the learner's code runs as when kata runs as
// root: nobody, or 65534 where there is no such user. Not root, kata
// cannot switch users, and the learner's code runs as kata's user.
func unprivileged() *gotest.User {
	if runtime.GOOS == "windows" || os.Geteuid() != 0 {
		return nil
	}
	u := &gotest.User{UID: 65534, GID: 65534}
	if nb, err := user.Lookup("nobody"); err == nil {
		if uid, err := strconv.ParseUint(nb.Uid, 10, 32); err == nil {
			u.UID = uint32(uid)
		}
		if gid, err := strconv.ParseUint(nb.Gid, 10, 32); err == nil {
			u.GID = uint32(gid)
		}
	}
	return u
}

// hasBinding says whether r isolates exercise id.
func (r *Remote) hasBinding(id string) bool {
	return r != nil && slices.Contains(r.Exercises, id)
}
