package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// hintsFile remembers, per step, how many hint levels the learner has
// seen, so that each `kata hint` shows the next one. It is a convenience,
// not a record: a missing or unreadable file simply starts afresh.
const hintsFile = ".kata/hints.json"

type hintState struct {
	path string
	// Shown maps "01-reconcile/01-create-missing" to the highest hint
	// level shown, from 1.
	Shown map[string]int `json:"shown"`
}

// loadHints reads the hint state. A corrupt file is not an error: it is
// replaced, and the note says so.
func loadHints(root string) (h *hintState, note string) {
	h = &hintState{path: filepath.Join(root, hintsFile), Shown: map[string]int{}}
	data, err := os.ReadFile(h.path)
	switch {
	case os.IsNotExist(err):
		return h, ""
	case err != nil:
		return h, fmt.Sprintf("could not read %s (%v); starting it afresh", hintsFile, err)
	}
	var saved hintState
	if err := json.Unmarshal(data, &saved); err != nil || saved.Shown == nil {
		return h, fmt.Sprintf("%s was unreadable; starting it afresh", hintsFile)
	}
	for k, v := range saved.Shown {
		if v > 0 && strings.Contains(k, "/") {
			h.Shown[k] = v
		}
	}
	return h, ""
}

// save writes the state through a temporary file, so that a crash never
// leaves half a file behind.
func (h *hintState) save() error {
	data, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o755); err != nil {
		return fmt.Errorf("saving hints: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(h.path), ".hints-*.json")
	if err != nil {
		return fmt.Errorf("saving hints: %w", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	if werr == nil {
		werr = tmp.Chmod(0o644)
	}
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), h.path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("saving hints: %w", werr)
	}
	return nil
}

func hintKey(exercise, step string) string { return exercise + "/" + step }

// forget drops what was shown for an exercise's steps (after a reset).
func (h *hintState) forget(exercise string) {
	for k := range h.Shown {
		if strings.HasPrefix(k, exercise+"/") {
			delete(h.Shown, k)
		}
	}
}
