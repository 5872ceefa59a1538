package labels

import (
	"testing"

	"github.com/kubekata/kubekata/harness/labelstest"
)

// testImpl hands this package's functions to the conformance suite.
var testImpl = labelstest.Impl{
	IsLabelKey:              IsLabelKey,
	IsLabelValue:            IsLabelValue,
	Parse:                   Parse,
	Matches:                 Matches,
	LabelSelectorAsSelector: LabelSelectorAsSelector,
	String:                  String,
}

func TestLabels(t *testing.T) { labelstest.Run(t, testImpl) }

func FuzzParse(f *testing.F) { labelstest.Fuzz(f, testImpl) }
