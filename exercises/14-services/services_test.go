package services

import (
	"testing"

	"github.com/kubekata/kubekata/harness/servicestest"
)

// testImpl hands this package's functions to the conformance suite.
var testImpl = servicestest.Impl{
	NewIPRange:   NewIPRange,
	NewPortRange: NewPortRange,
	Slices:       Slices,
	Rules:        Rules,
	PartialRules: PartialRules,
	New:          New,
	Lookup:       Lookup,
	Env:          Env,
}

func TestServices(t *testing.T) { servicestest.Run(t, testImpl) }
