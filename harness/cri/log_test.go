package cri_test

import (
	"errors"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
)

func TestLogLineRoundTrip(t *testing.T) {
	at := time.Date(2016, 10, 6, 0, 17, 9, 669794202, time.UTC)
	for _, l := range []cri.LogLine{
		{Time: at, Stream: cri.Stdout, Message: "hello"},
		{Time: at, Stream: cri.Stderr, Partial: true, Message: "part of a long line"},
		{Time: at, Stream: cri.Stdout, Message: ""},
		{Time: at, Stream: cri.Stdout, Message: "spaces  inside and at the end "},
	} {
		text := l.Format()
		got, err := cri.ParseLogLine([]byte(text))
		if err != nil || !got.Time.Equal(l.Time) || got.Stream != l.Stream || got.Partial != l.Partial || got.Message != l.Message {
			t.Errorf("ParseLogLine(%q) = %+v, %v; want %+v, nil", text, got, err, l)
		}
	}
	if got, want := (cri.LogLine{Time: at, Stream: cri.Stdout, Message: "hello"}).Format(), "2016-10-06T00:17:09.669794202Z stdout F hello\n"; got != want {
		t.Errorf("Format() = %q, want %q (CRI's format)", got, want)
	}
}

func TestParseLogLineRejects(t *testing.T) {
	for _, line := range []string{
		"",
		"2016-10-06T00:17:09Z stdout",
		"yesterday stdout F hi",
		"2016-10-06T00:17:09Z stdin F hi",
		"2016-10-06T00:17:09Z stdout X hi",
	} {
		if got, err := cri.ParseLogLine([]byte(line)); err == nil {
			t.Errorf("ParseLogLine(%q) = %+v, nil; want an error", line, got)
		}
	}
}

func TestParseImage(t *testing.T) {
	for _, c := range []struct{ in, name, tag string }{
		{"kata/sleep", "kata/sleep", "latest"},
		{"kata/sleep:1.0", "kata/sleep", "1.0"},
		{"localhost:5000/app", "localhost:5000/app", "latest"},
		{"localhost:5000/app:v2", "localhost:5000/app", "v2"},
		{"kata/sleep@sha256:abc", "kata/sleep@sha256:abc", ""},
	} {
		name, tag, err := cri.ParseImage(c.in)
		if err != nil || name != c.name || tag != c.tag {
			t.Errorf("ParseImage(%q) = %q, %q, %v; want %q, %q, nil", c.in, name, tag, err, c.name, c.tag)
		}
	}
	for _, bad := range []string{"", "Kata/Sleep", "kata/sleep:", "kata sleep", ":1.0"} {
		if name, tag, err := cri.ParseImage(bad); err == nil {
			t.Errorf("ParseImage(%q) = %q, %q, nil; want an error", bad, name, tag)
		}
	}
	if got, err := cri.NormalizeImage("kata/http-echo"); err != nil || got != "kata/http-echo:latest" {
		t.Errorf("NormalizeImage(kata/http-echo) = %q, %v; want kata/http-echo:latest, nil", got, err)
	}
	if !cri.IsNotFound(errors.Join(errors.New("x"), cri.ErrNotFound)) || cri.IsNotFound(errors.New("cri: not found")) {
		t.Error("IsNotFound must follow errors.Is on ErrNotFound, not the text")
	}
}
