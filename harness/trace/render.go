package trace

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// FormatOffset is an offset as the table shows it: +1.234s.
func FormatOffset(d time.Duration) string {
	return fmt.Sprintf("+%.3fs", d.Seconds())
}

// FormatEntry is one entry as a line of the table (no newline), in
// fixed columns so that a stream of them lines up as the table does.
func FormatEntry(e Entry) string {
	return strings.TrimRight(fmt.Sprintf("%-9s  %-23s  %-7s  %-30s  %s", FormatOffset(e.Offset), e.Component, e.Kind, e.Object, e.Text), " ")
}

// Header is the table's heading line, in FormatEntry's columns.
const Header = "OFFSET     COMPONENT                KIND     OBJECT                          WHAT"

// WriteText writes entries as a table: +offset, component, kind,
// object, what happened.
func WriteText(w io.Writer, entries []Entry) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, Header)
	for _, e := range entries {
		fmt.Fprintln(bw, FormatEntry(e))
	}
	return bw.Flush()
}

// Lanes are the components of entries in the order they first act.
func Lanes(entries []Entry) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range entries {
		if !seen[e.Component] {
			seen[e.Component] = true
			out = append(out, e.Component)
		}
	}
	return out
}

// Handoff is an arrow of the picture: from entry From to entry To
// (indexes into the entries), in different lanes.
type Handoff struct{ From, To int }

// Handoffs are the arrows between lanes: from each entry of an object to
// its next entry when another component made it, and from an owner's
// creation to each dependent's creation (the controller manager that
// made the pod acted on its ReplicaSet) when they are in different lanes.
func Handoffs(entries []Entry) []Handoff {
	var out []Handoff
	last := map[string]int{}
	created := map[string]int{}
	for i, e := range entries {
		if e.Creation {
			if _, ok := created[e.Object]; !ok {
				created[e.Object] = i
			}
			if j, ok := created[e.Owner]; ok && e.Owner != "" && entries[j].Component != e.Component {
				out = append(out, Handoff{j, i})
			}
		}
		if j, ok := last[e.Object]; ok && entries[j].Component != e.Component {
			out = append(out, Handoff{j, i})
		}
		last[e.Object] = i
	}
	return out
}

// The picture's geometry, in pixels.
const (
	svgLabel  = 190 // the lane labels' column
	svgPlot   = 900 // the time axis' length
	svgLane   = 44  // a lane's height
	svgTop    = 40  // room for the title
	svgBottom = 36  // room for the axis
	svgDot    = 5   // a dot's radius
	// svgMaxLabels: beyond this many entries the dots carry their text in
	// a tooltip only, or the labels would cover each other.
	svgMaxLabels = 40
)

// WriteSVG draws entries as an SVG 1.1 picture: a lane per component
// (Lanes), a dot per entry at its offset (its text in a <title> that a
// browser shows on hover, and beside it when there are few), an arrow
// per Handoff, and a time axis.
func WriteSVG(w io.Writer, entries []Entry) error {
	lanes := Lanes(entries)
	laneOf := map[string]int{}
	for i, l := range lanes {
		laneOf[l] = i
	}
	var span time.Duration
	for _, e := range entries {
		span = max(span, e.Offset)
	}
	if span <= 0 {
		span = time.Millisecond
	}
	x := func(e Entry) float64 { return svgLabel + 10 + float64(e.Offset)/float64(span)*(svgPlot-20) }
	y := func(e Entry) float64 { return svgTop + float64(laneOf[e.Component])*svgLane + svgLane/2 }
	width := svgLabel + svgPlot + 20
	height := svgTop + len(lanes)*svgLane + svgBottom
	esc := func(s string) string {
		var b strings.Builder
		_ = xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	fmt.Fprintf(bw, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", width, height, width, height)
	fmt.Fprintf(bw, "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#555\"/></marker></defs>\n")
	title := "kata trace"
	if len(entries) > 0 {
		title = fmt.Sprintf("kata trace: %d entries over %s", len(entries), FormatOffset(span))
	}
	fmt.Fprintf(bw, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>\n", esc(title))
	fills := []string{"#f2f6fc", "#fcf6ee"}
	colors := []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}
	for i, l := range lanes {
		top := svgTop + i*svgLane
		fmt.Fprintf(bw, "<g class=\"lane\" id=\"lane-%d\"><rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/><text x=\"10\" y=\"%d\" fill=\"%s\" font-weight=\"bold\">%s</text></g>\n",
			i, top, width, svgLane, fills[i%2], top+svgLane/2+4, colors[i%len(colors)], esc(l))
	}
	axis := svgTop + len(lanes)*svgLane + 12
	fmt.Fprintf(bw, "<g class=\"axis\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>", svgLabel+10, axis, svgLabel+svgPlot-10, axis)
	for i := 0; i <= 4; i++ {
		ax := svgLabel + 10 + float64(i)/4*(svgPlot-20)
		fmt.Fprintf(bw, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>", ax, axis+16, FormatOffset(span*time.Duration(i)/4))
	}
	fmt.Fprintf(bw, "</g>\n")
	for _, h := range Handoffs(entries) {
		a, b := entries[h.From], entries[h.To]
		y2 := y(b)
		// Stop short of the dot so that the arrowhead shows.
		if y2 > y(a) {
			y2 -= svgDot
		} else {
			y2 += svgDot
		}
		fmt.Fprintf(bw, "<line class=\"handoff\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-width=\"1\" marker-end=\"url(#arrow)\"/>\n", x(a), y(a), x(b), y2)
	}
	for i, e := range entries {
		c := colors[laneOf[e.Component]%len(colors)]
		text := fmt.Sprintf("%s %s %s %s", FormatOffset(e.Offset), e.Component, e.Object, e.Text)
		fmt.Fprintf(bw, "<circle class=\"entry\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>%s</title></circle>\n", x(e), y(e), svgDot, c, esc(text))
		if len(entries) <= svgMaxLabels {
			// Alternate above and below the dot so that neighbours clash less.
			dy := -8.0
			if i%2 == 1 {
				dy = 16
			}
			fmt.Fprintf(bw, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" font-size=\"9\" fill=\"#333\">%s</text>\n", x(e)+4, y(e)+dy, esc(short(e.Text, 40)))
		}
	}
	fmt.Fprintf(bw, "</svg>\n")
	return bw.Flush()
}

// short cuts s to n runes, with an ellipsis.
func short(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
