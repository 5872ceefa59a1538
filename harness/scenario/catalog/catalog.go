// Package catalog reads the scenarios in testdata/scenarios without
// running them: their names, what each shows, and the exercises each
// needs. It is light (the standard library only), so that kata can list
// scenarios without linking the scenario engine.
//
// A scenario is a testscript file <area>_<behaviour>.txtar whose header
// (the comment lines before its first command) says what it shows, and
// holds one line naming the exercises it needs, in course order:
//
//	# needs: 03-store 04-apiserver
package catalog

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Where the scenarios live and how they run, shared by the engine's test
// and kata scenario.
const (
	// Dir holds the scenarios, relative to the module root.
	Dir = "testdata/scenarios"
	// Package is the engine's package, relative to the module root; its
	// Test runs every scenario as the subtest Test/<Name>.
	Package = "harness/scenario"
	Test    = "TestScenarios"
	// ClusterEnv names a cluster program for Test to run the scenarios
	// against instead of the reference; kata scenario builds the
	// learner's and sets it.
	ClusterEnv = "KATA_SCENARIO_CLUSTER"
)

// Scenario is one scenario file.
type Scenario struct {
	// Name is the file name without .txtar, also its subtest's name
	// (TestScenarios/<Name>).
	Name string
	// Summary is the header's lead: its text up to the first ": " or
	// ". " (what the scenario shows, in a few words).
	Summary string
	// Needs are the exercise ids the scenario needs.
	Needs []string
}

var (
	nameRe = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*_[a-z0-9]+(-[a-z0-9]+)*$`)
	idRe   = regexp.MustCompile(`^\d\d-[a-z0-9-]+$`)
)

// Parse reads a scenario's header. It fails when the name is not
// <area>_<behaviour>, or the header has no summary or no (or more than
// one) needs line, or a need is not an exercise id.
func Parse(name string, data []byte) (Scenario, error) {
	s := Scenario{Name: name}
	if !nameRe.MatchString(name) {
		return s, fmt.Errorf("catalog: scenario %s: the name must be <area>_<behaviour> in lower case (such as store_survives-restart)", name)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	var summary []string
	needs := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			if len(summary) > 0 {
				break
			}
			continue
		}
		if !strings.HasPrefix(line, "#") || strings.HasPrefix(line, "-- ") {
			break
		}
		text := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		if rest, ok := strings.CutPrefix(text, "needs:"); ok {
			needs++
			s.Needs = strings.Fields(rest)
			for _, id := range s.Needs {
				if !idRe.MatchString(id) {
					return s, fmt.Errorf("catalog: scenario %s: needs %q, which is not an exercise id (NN-topic)", name, id)
				}
			}
			continue
		}
		if needs == 0 {
			summary = append(summary, text)
		}
	}
	if len(summary) == 0 {
		return s, fmt.Errorf("catalog: scenario %s: the header has no comment saying what it shows", name)
	}
	if needs != 1 || len(s.Needs) == 0 {
		return s, fmt.Errorf("catalog: scenario %s: the header needs exactly one line '# needs: NN-topic ...'", name)
	}
	s.Summary = lead(strings.Join(summary, " "))
	return s, nil
}

// lead cuts text before its first ": " or after its first ". ", or
// returns it whole.
func lead(text string) string {
	colon, stop := strings.Index(text, ": "), strings.Index(text, ". ")
	switch {
	case colon >= 0 && (stop < 0 || colon < stop):
		return text[:colon]
	case stop >= 0:
		return text[:stop+1]
	}
	return text
}

// List reads every scenario in dir (*.txtar), sorted by name.
func List(dir string) ([]Scenario, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	sort.Strings(files)
	var out []Scenario
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		s, err := Parse(strings.TrimSuffix(filepath.Base(f), ".txtar"), data)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
