package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
)

// ui writes the learner commands' output, in colour when the output is a
// terminal and NO_COLOR is not set (https://no-color.org).
type ui struct {
	w     io.Writer
	color bool

	bold, dim, green, red, yellow, cyan *color.Color
}

func newUI(env *Env, w io.Writer) *ui {
	u := &ui{w: w, color: wantColor(env, w)}
	mk := func(attrs ...color.Attribute) *color.Color {
		c := color.New(attrs...)
		if u.color {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	u.bold = mk(color.Bold)
	u.dim = mk(color.Faint)
	u.green = mk(color.FgGreen, color.Bold)
	u.red = mk(color.FgRed, color.Bold)
	u.yellow = mk(color.FgYellow)
	u.cyan = mk(color.FgCyan)
	return u
}

// wantColor says whether w gets colour: never when NO_COLOR is set (to
// anything) or TERM is dumb, only when w is a terminal.
func wantColor(env *Env, w io.Writer) bool {
	if env.Getenv != nil && (env.Getenv("NO_COLOR") != "" || env.Getenv("TERM") == "dumb") {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

func (u *ui) printf(format string, args ...any) { fmt.Fprintf(u.w, format, args...) }
func (u *ui) println(args ...any)               { fmt.Fprintln(u.w, args...) }

// block prints text indented by prefix, one line at a time.
func (u *ui) block(prefix, text string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if line == "" {
			fmt.Fprintln(u.w)
			continue
		}
		fmt.Fprintln(u.w, prefix+line)
	}
}

// mark is the verdict sign of a step: ✓ passed, ✗ failed, – skipped.
func (u *ui) mark(pass bool) string {
	if pass {
		return u.green.Sprint("✓")
	}
	return u.red.Sprint("✗")
}

// plural is "1 step", "2 steps".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// wrap breaks text into lines of at most width runes at spaces, keeping
// its own line breaks.
func wrap(text string, width int) string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width:
				out = append(out, line)
				line = word
			default:
				line += " " + word
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
