package cri

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// LogLine is one line of a container log file in CRI's format, as
// runtimes write it and the kubelet reads it for kubectl logs
// (pkg/kubelet/kuberuntime/logs/logs.go):
//
//	2016-10-06T00:17:09.669794202Z stdout F hello
//
// the time in RFC 3339 with nanoseconds, the stream, a tag (F for a
// full line, P for part of a line too long to write at once) and the
// text without its newline.
type LogLine struct {
	Time    time.Time
	Stream  string // "stdout" or "stderr"
	Partial bool
	Message string
}

// The streams a log line comes from.
const (
	Stdout = "stdout"
	Stderr = "stderr"
)

// Format returns the line as it is written to a log file, newline
// included.
func (l LogLine) Format() string {
	tag := "F"
	if l.Partial {
		tag = "P"
	}
	return l.Time.UTC().Format(time.RFC3339Nano) + " " + l.Stream + " " + tag + " " + l.Message + "\n"
}

// ParseLogLine parses one line of a log file (with or without its
// newline).
func ParseLogLine(line []byte) (LogLine, error) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	parts := strings.SplitN(string(line), " ", 4)
	if len(parts) < 3 {
		return LogLine{}, fmt.Errorf("cri: log line %q: want TIME STREAM TAG MESSAGE", line)
	}
	t, err := time.Parse(time.RFC3339Nano, parts[0])
	if err != nil {
		return LogLine{}, fmt.Errorf("cri: log line %q: %v", line, err)
	}
	if parts[1] != Stdout && parts[1] != Stderr {
		return LogLine{}, fmt.Errorf("cri: log line %q: stream %q, want stdout or stderr", line, parts[1])
	}
	if parts[2] != "F" && parts[2] != "P" {
		return LogLine{}, fmt.Errorf("cri: log line %q: tag %q, want F or P", line, parts[2])
	}
	msg := ""
	if len(parts) == 4 {
		msg = parts[3]
	}
	return LogLine{Time: t, Stream: parts[1], Partial: parts[2] == "P", Message: msg}, nil
}

// ParseImage splits an image name into its name and tag; no tag is
// "latest", as upstream (a digest, NAME@sha256:..., is kept whole as
// the name with an empty tag). An empty name, or one with spaces or
// upper-case letters, is an error (upstream's InvalidImageName).
func ParseImage(image string) (name, tag string, err error) {
	if image == "" || strings.ContainsAny(image, " \t\n") || strings.ToLower(image) != image {
		return "", "", fmt.Errorf("cri: invalid image name %q", image)
	}
	if strings.Contains(image, "@") {
		return image, "", nil
	}
	name, tag = image, "latest"
	// A colon after the last slash starts the tag (a colon before it is
	// a registry's port: localhost:5000/app).
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		name, tag = image[:i], image[i+1:]
	}
	if name == "" || tag == "" {
		return "", "", fmt.Errorf("cri: invalid image name %q", image)
	}
	return name, tag, nil
}

// NormalizeImage returns NAME:TAG for an image name ("kata/sleep" is
// "kata/sleep:latest"), or the error of ParseImage.
func NormalizeImage(image string) (string, error) {
	name, tag, err := ParseImage(image)
	if err != nil {
		return "", err
	}
	if tag == "" {
		return name, nil
	}
	return name + ":" + tag, nil
}
