package garbagecollector

import (
	"testing"

	"github.com/kubekata/kubekata/harness/gctest"
)

func TestGarbageCollector(t *testing.T) {
	gctest.Run(t, gctest.Impl{Classify: Classify, Decide: Decide, New: New})
}
