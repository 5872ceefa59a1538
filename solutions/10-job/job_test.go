package job

import (
	"testing"

	"github.com/kubekata/kubekata/harness/jobtest"
)

func TestJob(t *testing.T) {
	jobtest.Run(t, jobtest.Impl{Plan: Plan, Cleanup: Cleanup, New: New})
}
