package remote

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/labelstest"
	"github.com/kubekata/kubekata/harness/selector"
)

type matchArgs struct {
	Sel    selector.Selector `json:"sel"`
	Labels map[string]string `json:"labels"`
}

// selResult is a selector and an error, the answer of Parse and
// LabelSelectorAsSelector.
type selResult struct {
	Sel selector.Selector `json:"sel"`
	Err *wireError        `json:"err,omitempty"`
}

// LabelsService serves exercise 02's contract, impl.
func LabelsService(impl labelstest.Impl) Service {
	return Service{exercise: "02-labels", methods: map[string]method{
		"labels.IsLabelKey": func(c *serverCall) *frame {
			var s string
			if f := c.decode(&s); f != nil {
				return f
			}
			return resultFrame(impl.IsLabelKey(s), nil)
		},
		"labels.IsLabelValue": func(c *serverCall) *frame {
			var s string
			if f := c.decode(&s); f != nil {
				return f
			}
			return resultFrame(impl.IsLabelValue(s), nil)
		},
		"labels.Parse": func(c *serverCall) *frame {
			var s string
			if f := c.decode(&s); f != nil {
				return f
			}
			sel, err := impl.Parse(s)
			return resultFrame(selResult{Sel: sel, Err: toWire(err)}, nil)
		},
		"labels.Matches": func(c *serverCall) *frame {
			var a matchArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			return resultFrame(impl.Matches(a.Sel, a.Labels), nil)
		},
		"labels.LabelSelectorAsSelector": func(c *serverCall) *frame {
			var ls *api.LabelSelector
			if f := c.decode(&ls); f != nil {
				return f
			}
			sel, err := impl.LabelSelectorAsSelector(ls)
			return resultFrame(selResult{Sel: sel, Err: toWire(err)}, nil)
		},
		"labels.String": func(c *serverCall) *frame {
			var sel selector.Selector
			if f := c.decode(&sel); f != nil {
				return f
			}
			return resultFrame(impl.String(sel), nil)
		},
	}}
}

// Labels is a labelstest.Impl whose functions call the program's.
func Labels(p *Program) labelstest.Impl {
	return labelstest.Impl{
		IsLabelKey: func(key string) []string {
			var out []string
			p.pure("labels.IsLabelKey", key, &out)
			return out
		},
		IsLabelValue: func(value string) []string {
			var out []string
			p.pure("labels.IsLabelValue", value, &out)
			return out
		},
		Parse: func(s string) (selector.Selector, error) {
			var out selResult
			p.pure("labels.Parse", s, &out)
			return out.Sel, fromWire(out.Err)
		},
		Matches: func(sel selector.Selector, labels map[string]string) bool {
			var out bool
			p.pure("labels.Matches", matchArgs{Sel: sel, Labels: labels}, &out)
			return out
		},
		LabelSelectorAsSelector: func(ls *api.LabelSelector) (selector.Selector, error) {
			var out selResult
			p.pure("labels.LabelSelectorAsSelector", ls, &out)
			return out.Sel, fromWire(out.Err)
		},
		String: func(sel selector.Selector) string {
			var out string
			p.pure("labels.String", sel, &out)
			return out
		},
	}
}
