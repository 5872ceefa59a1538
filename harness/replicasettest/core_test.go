package replicasettest_test

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/replicas"
	"github.com/kubekata/kubekata/harness/replicasettest"

	stubs "github.com/kubekata/kubekata/exercises/07-replicaset"
)

// The mutants of steps 01-05: the reference with one rule of the pure
// core broken, each by a wrapper around one of NewPod, Claim,
// NewExpectations and Status that changes a copy of what goes in or what
// comes out. The wrapped function is the Impl's only: the reference's
// loop keeps calling its own, so these mutants run steps 01-05 alone.

// pure is a mutant that changes the pure functions only (it runs steps
// 01-05).
func pure(change func(ref replicasettest.Impl) replicasettest.Impl, fails ...string) mutant {
	return mutant{change: change, steps: pureSteps, fails: fails}
}

func init() {
	register(map[string]mutant{
		// The exercise's stubs (exercises/07-replicaset): every
		// function panics "not implemented". Every step fails, each on
		// its own (none hangs or takes the others down).
		"stubs": {whole: func() replicasettest.Impl {
			return replicasettest.Impl{
				NewPod:          stubs.NewPod,
				Claim:           stubs.Claim,
				NewExpectations: stubs.NewExpectations,
				Status:          stubs.Status,
				New:             stubs.New,
			}
		}, fails: allSteps},
		// A test file that passes no function: every step fails, saying
		// which function is missing.
		"nil-functions": {whole: func() replicasettest.Impl { return replicasettest.Impl{} }, fails: allSteps},
		// A controller whose Run returns at once: the pure steps pass,
		// every loop step fails.
		"run-returns-at-once": {change: func(ref replicasettest.Impl) replicasettest.Impl {
			ref.New = func(client.Interface, replicas.Options) replicas.Controller { return idle{} }
			return ref
		}, fails: allSteps[5:]},

		// 01: NewPod.
		"new-pod-without-block-owner-deletion": pure(newPodChanged(func(rs *api.ReplicaSet, p *api.Pod) {
			for i := range p.OwnerReferences {
				p.OwnerReferences[i].BlockOwnerDeletion = nil
			}
		}), "01-new-pod"),
		"new-pod-shares-template-labels": pure(newPodChanged(func(rs *api.ReplicaSet, p *api.Pod) {
			p.Labels = rs.Spec.Template.Labels
		}), "01-new-pod"),
		"new-pod-shares-template-spec": pure(newPodChanged(func(rs *api.ReplicaSet, p *api.Pod) {
			p.Spec = rs.Spec.Template.Spec
		}), "01-new-pod"),
		"new-pod-in-template-namespace": pure(newPodChanged(func(rs *api.ReplicaSet, p *api.Pod) {
			p.Namespace = rs.Spec.Template.Namespace
		}), "01-new-pod"),
		"new-pod-named-as-template": pure(newPodChanged(func(rs *api.ReplicaSet, p *api.Pod) {
			p.Name = rs.Spec.Template.Name
		}), "01-new-pod"),
		"new-pod-generate-name-without-dash": pure(newPodChanged(func(rs *api.ReplicaSet, p *api.Pod) {
			p.GenerateName = rs.Name
		}), "01-new-pod"),
		"new-pod-keeps-template-owners": pure(newPodChanged(func(rs *api.ReplicaSet, p *api.Pod) {
			p.OwnerReferences = append(api.DeepCopyValue(rs.Spec.Template.OwnerReferences), p.OwnerReferences...)
		}), "01-new-pod"),
		"new-pod-kind-from-type-meta": pure(newPodChanged(func(rs *api.ReplicaSet, p *api.Pod) {
			p.OwnerReferences[0].APIVersion, p.OwnerReferences[0].Kind = rs.APIVersion, rs.Kind
		}), "01-new-pod"),
		"new-pod-without-finalizers": pure(newPodChanged(func(rs *api.ReplicaSet, p *api.Pod) {
			p.Finalizers = nil
		}), "01-new-pod"),
		"new-pod-without-annotations": pure(newPodChanged(func(rs *api.ReplicaSet, p *api.Pod) {
			p.Annotations = nil
		}), "01-new-pod"),
		"new-pod-owner-not-controller": pure(newPodChanged(func(rs *api.ReplicaSet, p *api.Pod) {
			p.OwnerReferences[0].Controller = nil
		}), "01-new-pod"),
		"new-pod-keeps-template-uid": pure(newPodChanged(func(rs *api.ReplicaSet, p *api.Pod) {
			p.UID = rs.Spec.Template.UID
		}), "01-new-pod"),

		// 02-03: Claim, one pod at a time with a changed copy of rs
		// or of the pod.
		"claim-adopts-terminating-orphans": pure(claimPerPod(func(rs *api.ReplicaSet, p *api.Pod) {
			if api.GetControllerOf(p) == nil {
				p.DeletionTimestamp = nil
			}
		}), "02-claim-adopt"),
		"claim-adopts-while-rs-deleted": pure(claimPerPod(func(rs *api.ReplicaSet, p *api.Pod) {
			if api.GetControllerOf(p) == nil {
				rs.DeletionTimestamp = nil
			}
		}), "02-claim-adopt"),
		"claim-releases-while-rs-deleted": pure(claimPerPod(func(rs *api.ReplicaSet, p *api.Pod) {
			if ref := api.GetControllerOf(p); ref != nil && ref.UID == rs.UID {
				rs.DeletionTimestamp = nil
			}
		}), "03-claim-release"),
		"claim-releases-other-owners-pods": pure(func(ref replicasettest.Impl) replicasettest.Impl {
			inner := ref.Claim
			ref.Claim = func(rs *api.ReplicaSet, pods []*api.Pod) replicas.Claim {
				var out replicas.Claim
				for _, p := range pods {
					one := inner(rs, []*api.Pod{p})
					if r := api.GetControllerOf(p); r != nil && r.UID != rs.UID {
						// As if it were rs's: keep only the release.
						q := api.DeepCopy(p)
						api.GetControllerOf(q).UID = rs.UID
						one = replicas.Claim{Release: inner(rs, []*api.Pod{q}).Release}
					}
					out = appendClaim(out, one)
				}
				return out
			}
			return ref
		}, "03-claim-release"),
		"claim-never-adopts": pure(func(ref replicasettest.Impl) replicasettest.Impl {
			inner := ref.Claim
			ref.Claim = func(rs *api.ReplicaSet, pods []*api.Pod) replicas.Claim {
				c := inner(rs, pods)
				var owned []string
				for _, n := range c.Owned {
					if !slices.Contains(c.Adopt, n) {
						owned = append(owned, n)
					}
				}
				return replicas.Claim{Owned: owned, Release: c.Release}
			}
			return ref
		}, "02-claim-adopt"),
		"claim-ignores-match-expressions": pure(claimPerPod(func(rs *api.ReplicaSet, p *api.Pod) {
			if rs.Spec.Selector != nil {
				rs.Spec.Selector.MatchExpressions = nil
			}
		}), "02-claim-adopt", "03-claim-release"),
		"claim-nil-selector-matches-everything": pure(claimPerPod(func(rs *api.ReplicaSet, p *api.Pod) {
			if rs.Spec.Selector == nil {
				rs.Spec.Selector = &api.LabelSelector{}
			}
		}), "02-claim-adopt"),
		"claim-empty-selector-matches-nothing": pure(claimPerPod(func(rs *api.ReplicaSet, p *api.Pod) {
			if s := rs.Spec.Selector; s != nil && len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0 {
				rs.Spec.Selector = nil
			}
		}), "02-claim-adopt"),
		"claim-not-in-needs-the-key": pure(claimPerPod(func(rs *api.ReplicaSet, p *api.Pod) {
			if s := rs.Spec.Selector; s != nil {
				for _, r := range s.MatchExpressions {
					if _, has := p.Labels[r.Key]; r.Operator == api.LabelSelectorOpNotIn && !has {
						rs.Spec.Selector = nil
						return
					}
				}
			}
		}), "02-claim-adopt"),
		"claim-non-controller-reference-counts": pure(claimPerPod(func(rs *api.ReplicaSet, p *api.Pod) {
			if api.GetControllerOf(p) != nil {
				return
			}
			for i, r := range p.OwnerReferences {
				if r.UID == rs.UID {
					yes := true
					p.OwnerReferences[i].Controller = &yes
				}
			}
		}), "02-claim-adopt"),
		"claim-any-namespace": pure(claimPerPod(func(rs *api.ReplicaSet, p *api.Pod) {
			p.Namespace = rs.Namespace
		}), "02-claim-adopt", "03-claim-release"),
		"claim-owner-by-name": pure(claimPerPod(func(rs *api.ReplicaSet, p *api.Pod) {
			if r := api.GetControllerOf(p); r != nil && r.Kind == "ReplicaSet" && r.Name == rs.Name {
				r.UID = rs.UID
			}
		}), "03-claim-release"),
		"claim-drops-terminating-owned-pods": pure(func(ref replicasettest.Impl) replicasettest.Impl {
			inner := ref.Claim
			ref.Claim = func(rs *api.ReplicaSet, pods []*api.Pod) replicas.Claim {
				var out replicas.Claim
				for _, p := range pods {
					if r := api.GetControllerOf(p); r != nil && r.UID == rs.UID && p.DeletionTimestamp != nil {
						continue
					}
					out = appendClaim(out, inner(rs, []*api.Pod{p}))
				}
				return out
			}
			return ref
		}, "03-claim-release"),

		// 04: the expectations.
		"expectations-deletions-counted-twice": pure(expectationsWrapped(func(inner replicas.Expectations) replicas.Expectations {
			return &countsEveryDeletion{Expectations: inner, expected: map[string][]string{}, seen: map[string]map[string]bool{}}
		}), "04-expectations"),
		"expectations-expire-at-the-timeout": pure(expectationsWrapped(func(inner replicas.Expectations) replicas.Expectations {
			return satisfiedAt{inner, time.Nanosecond}
		}), "04-expectations"),
		"expectations-never-expire": pure(expectationsWrapped(func(inner replicas.Expectations) replicas.Expectations {
			return satisfiedAt{inner, -time.Hour}
		}), "04-expectations"),
		"expectations-record-time-kept": pure(expectationsWrapped(func(inner replicas.Expectations) replicas.Expectations {
			return &firstTime{Expectations: inner, first: map[string]time.Time{}}
		}), "04-expectations"),
		"expectations-deletions-add-up": pure(expectationsWrapped(func(inner replicas.Expectations) replicas.Expectations {
			return &deletionsAddUp{Expectations: inner, pending: map[string][]string{}}
		}), "04-expectations"),
		"expectations-keys-shared": pure(expectationsWrapped(func(inner replicas.Expectations) replicas.Expectations {
			return oneKey{inner}
		}), "04-expectations"),
		"expectations-delete-ignored": pure(expectationsWrapped(func(inner replicas.Expectations) replicas.Expectations {
			return deleteIgnored{inner}
		}), "04-expectations"),
		"expectations-creations-add-up": pure(expectationsWrapped(func(inner replicas.Expectations) replicas.Expectations {
			return &creationsAddUp{Expectations: inner, pending: map[string]int{}}
		}), "04-expectations"),

		// 05: Status.
		"status-available-ignores-min-ready-seconds": pure(statusInputs(func(rs *api.ReplicaSet, pods []*api.Pod, err error, now time.Time) time.Time {
			rs.Spec.MinReadySeconds = 0
			return now
		}), "05-status"),
		"status-available-strictly-after-min-ready-seconds": pure(statusInputs(func(rs *api.ReplicaSet, pods []*api.Pod, err error, now time.Time) time.Time {
			if err == nil {
				return now.Add(-time.Nanosecond)
			}
			return now
		}), "05-status"),
		"status-condition-time-reset-on-every-error": pure(statusInputs(func(rs *api.ReplicaSet, pods []*api.Pod, err error, now time.Time) time.Time {
			if err != nil {
				rs.Status.Conditions = slices.DeleteFunc(rs.Status.Conditions, isFailure)
			}
			return now
		}), "05-status"),
		"status-replicas-unset-as-zero": pure(statusInputs(func(rs *api.ReplicaSet, pods []*api.Pod, err error, now time.Time) time.Time {
			if rs.Spec.Replicas == nil {
				zero := int32(0)
				rs.Spec.Replicas = &zero
			}
			return now
		}), "05-status"),
		"status-fully-labeled-by-selector": pure(statusInputs(func(rs *api.ReplicaSet, pods []*api.Pod, err error, now time.Time) time.Time {
			rs.Spec.Template.Labels = rs.Spec.Selector.MatchLabels
			return now
		}), "05-status"),
		"status-ready-means-running": pure(statusInputs(func(rs *api.ReplicaSet, pods []*api.Pod, err error, now time.Time) time.Time {
			for _, p := range pods {
				if p.Status.Phase == api.PodRunning {
					for i := range p.Status.Conditions {
						p.Status.Conditions[i].Status = api.ConditionTrue
					}
				}
			}
			return now
		}), "05-status"),
		"status-observed-generation-unset": pure(statusOutput(func(rs *api.ReplicaSet, err error, now time.Time, s *api.ReplicaSetStatus) {
			s.ObservedGeneration = rs.Status.ObservedGeneration
		}), "05-status"),
		"status-failure-kept-without-error": pure(statusOutput(func(rs *api.ReplicaSet, err error, now time.Time, s *api.ReplicaSetStatus) {
			if i := slices.IndexFunc(rs.Status.Conditions, isFailure); err == nil && i >= 0 {
				s.Conditions = append(s.Conditions, rs.Status.Conditions[i])
			}
		}), "05-status"),
		"status-failure-reasons-swapped": pure(statusOutput(func(rs *api.ReplicaSet, err error, now time.Time, s *api.ReplicaSetStatus) {
			for i, c := range s.Conditions {
				if isFailure(c) && !slices.ContainsFunc(rs.Status.Conditions, isFailure) {
					if c.Reason == "FailedCreate" {
						s.Conditions[i].Reason = "FailedDelete"
					} else {
						s.Conditions[i].Reason = "FailedCreate"
					}
				}
			}
		}), "05-status"),
		"status-failure-time-not-truncated": pure(statusOutput(func(rs *api.ReplicaSet, err error, now time.Time, s *api.ReplicaSetStatus) {
			for i, c := range s.Conditions {
				if isFailure(c) && !slices.ContainsFunc(rs.Status.Conditions, isFailure) {
					s.Conditions[i].LastTransitionTime = api.NewTime(now)
				}
			}
		}), "05-status"),
		"status-drops-other-conditions": pure(statusOutput(func(rs *api.ReplicaSet, err error, now time.Time, s *api.ReplicaSetStatus) {
			s.Conditions = slices.DeleteFunc(s.Conditions, func(c api.ReplicaSetCondition) bool { return !isFailure(c) })
		}), "05-status"),
		"status-terminating-replicas-reset": pure(statusOutput(func(rs *api.ReplicaSet, err error, now time.Time, s *api.ReplicaSetStatus) {
			s.TerminatingReplicas = nil
		}), "05-status"),
	})
}

// idle is a controller that does nothing: Run returns at once.
type idle struct{}

func (idle) Run(context.Context) error { return nil }

// newPodChanged wraps NewPod: change edits the pod the reference made.
func newPodChanged(change func(rs *api.ReplicaSet, p *api.Pod)) func(replicasettest.Impl) replicasettest.Impl {
	return func(ref replicasettest.Impl) replicasettest.Impl {
		inner := ref.NewPod
		ref.NewPod = func(rs *api.ReplicaSet) *api.Pod {
			p := inner(rs)
			change(rs, p)
			return p
		}
		return ref
	}
}

// claimPerPod wraps Claim: each pod is claimed alone (as claimObject
// does), by copies of rs and the pod that change edits.
func claimPerPod(change func(rs *api.ReplicaSet, p *api.Pod)) func(replicasettest.Impl) replicasettest.Impl {
	return func(ref replicasettest.Impl) replicasettest.Impl {
		inner := ref.Claim
		ref.Claim = func(rs *api.ReplicaSet, pods []*api.Pod) replicas.Claim {
			var out replicas.Claim
			for _, p := range pods {
				rs2, p2 := api.DeepCopy(rs), api.DeepCopy(p)
				change(rs2, p2)
				out = appendClaim(out, inner(rs2, []*api.Pod{p2}))
			}
			return out
		}
		return ref
	}
}

// appendClaim appends b's lists to a's.
func appendClaim(a, b replicas.Claim) replicas.Claim {
	a.Owned = append(a.Owned, b.Owned...)
	a.Adopt = append(a.Adopt, b.Adopt...)
	a.Release = append(a.Release, b.Release...)
	return a
}

// expectationsWrapped wraps every Expectations NewExpectations returns.
func expectationsWrapped(wrap func(replicas.Expectations) replicas.Expectations) func(replicasettest.Impl) replicasettest.Impl {
	return func(ref replicasettest.Impl) replicasettest.Impl {
		inner := ref.NewExpectations
		ref.NewExpectations = func() replicas.Expectations { return wrap(inner()) }
		return ref
	}
}

// countsEveryDeletion lowers the expected deletions for every
// DeletionObserved, of a pod seen before or never expected too (it
// observes the next expected pod not yet observed in its stead).
type countsEveryDeletion struct {
	replicas.Expectations
	mu       sync.Mutex
	expected map[string][]string
	seen     map[string]map[string]bool
}

func (e *countsEveryDeletion) ExpectDeletions(key string, podKeys []string, now time.Time) {
	e.mu.Lock()
	e.expected[key] = slices.Clone(podKeys)
	e.seen[key] = map[string]bool{}
	e.mu.Unlock()
	e.Expectations.ExpectDeletions(key, podKeys, now)
}

func (e *countsEveryDeletion) DeletionObserved(key, podKey string) {
	e.mu.Lock()
	if !slices.Contains(e.expected[key], podKey) || e.seen[key][podKey] {
		for _, k := range e.expected[key] {
			if !e.seen[key][k] {
				podKey = k
				break
			}
		}
	}
	if e.seen[key] != nil {
		e.seen[key][podKey] = true
	}
	e.mu.Unlock()
	e.Expectations.DeletionObserved(key, podKey)
}

// satisfiedAt asks Satisfied at now + shift.
type satisfiedAt struct {
	replicas.Expectations
	shift time.Duration
}

func (e satisfiedAt) Satisfied(key string, now time.Time) bool {
	return e.Expectations.Satisfied(key, now.Add(e.shift))
}

// oneKey keeps every key's expectations under one key.
type oneKey struct{ inner replicas.Expectations }

const sharedKey = "all/keys"

func (e oneKey) ExpectCreations(_ string, adds int, now time.Time) {
	e.inner.ExpectCreations(sharedKey, adds, now)
}
func (e oneKey) ExpectDeletions(_ string, podKeys []string, now time.Time) {
	e.inner.ExpectDeletions(sharedKey, podKeys, now)
}
func (e oneKey) CreationObserved(string)                { e.inner.CreationObserved(sharedKey) }
func (e oneKey) DeletionObserved(_, podKey string)      { e.inner.DeletionObserved(sharedKey, podKey) }
func (e oneKey) Satisfied(_ string, now time.Time) bool { return e.inner.Satisfied(sharedKey, now) }
func (e oneKey) Delete(string)                          { e.inner.Delete(sharedKey) }

// firstTime records every key's expectations at the first time given for
// it, until Delete.
type firstTime struct {
	replicas.Expectations
	mu    sync.Mutex
	first map[string]time.Time
}

func (e *firstTime) at(key string, now time.Time) time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t, ok := e.first[key]; ok {
		return t
	}
	e.first[key] = now
	return now
}

func (e *firstTime) ExpectCreations(key string, adds int, now time.Time) {
	e.Expectations.ExpectCreations(key, adds, e.at(key, now))
}

func (e *firstTime) ExpectDeletions(key string, podKeys []string, now time.Time) {
	e.Expectations.ExpectDeletions(key, podKeys, e.at(key, now))
}

func (e *firstTime) Delete(key string) {
	e.mu.Lock()
	delete(e.first, key)
	e.mu.Unlock()
	e.Expectations.Delete(key)
}

// deletionsAddUp adds the pods still expected deleted to those of the
// next ExpectDeletions instead of replacing them.
type deletionsAddUp struct {
	replicas.Expectations
	mu      sync.Mutex
	pending map[string][]string
}

func (e *deletionsAddUp) ExpectDeletions(key string, podKeys []string, now time.Time) {
	e.mu.Lock()
	all := append(slices.Clone(e.pending[key]), podKeys...)
	e.pending[key] = all
	e.mu.Unlock()
	e.Expectations.ExpectDeletions(key, all, now)
}

func (e *deletionsAddUp) DeletionObserved(key, podKey string) {
	e.mu.Lock()
	e.pending[key] = slices.DeleteFunc(e.pending[key], func(k string) bool { return k == podKey })
	e.mu.Unlock()
	e.Expectations.DeletionObserved(key, podKey)
}

func (e *deletionsAddUp) Delete(key string) {
	e.mu.Lock()
	delete(e.pending, key)
	e.mu.Unlock()
	e.Expectations.Delete(key)
}

// deleteIgnored never forgets a key.
type deleteIgnored struct{ replicas.Expectations }

func (deleteIgnored) Delete(string) {}

// creationsAddUp adds the creations still expected to those of the next
// ExpectCreations instead of replacing them.
type creationsAddUp struct {
	replicas.Expectations
	mu      sync.Mutex
	pending map[string]int
}

func (e *creationsAddUp) ExpectCreations(key string, adds int, now time.Time) {
	e.mu.Lock()
	e.pending[key] += adds
	n := e.pending[key]
	e.mu.Unlock()
	e.Expectations.ExpectCreations(key, n, now)
}

func (e *creationsAddUp) ExpectDeletions(key string, podKeys []string, now time.Time) {
	e.mu.Lock()
	e.pending[key] = 0
	e.mu.Unlock()
	e.Expectations.ExpectDeletions(key, podKeys, now)
}

func (e *creationsAddUp) CreationObserved(key string) {
	e.mu.Lock()
	if e.pending[key] > 0 {
		e.pending[key]--
	}
	e.mu.Unlock()
	e.Expectations.CreationObserved(key)
}

func (e *creationsAddUp) Delete(key string) {
	e.mu.Lock()
	delete(e.pending, key)
	e.mu.Unlock()
	e.Expectations.Delete(key)
}

// statusInputs wraps Status: change edits copies of rs and the pods and
// returns the time to pass.
func statusInputs(change func(rs *api.ReplicaSet, pods []*api.Pod, err error, now time.Time) time.Time) func(replicasettest.Impl) replicasettest.Impl {
	return func(ref replicasettest.Impl) replicasettest.Impl {
		inner := ref.Status
		ref.Status = func(rs *api.ReplicaSet, pods []*api.Pod, err error, now time.Time) api.ReplicaSetStatus {
			rs2 := api.DeepCopy(rs)
			pods2 := make([]*api.Pod, len(pods))
			for i, p := range pods {
				pods2[i] = api.DeepCopy(p)
			}
			now2 := change(rs2, pods2, err, now)
			return inner(rs2, pods2, err, now2)
		}
		return ref
	}
}

// statusOutput wraps Status: change edits the status it returned.
func statusOutput(change func(rs *api.ReplicaSet, err error, now time.Time, s *api.ReplicaSetStatus)) func(replicasettest.Impl) replicasettest.Impl {
	return func(ref replicasettest.Impl) replicasettest.Impl {
		inner := ref.Status
		ref.Status = func(rs *api.ReplicaSet, pods []*api.Pod, err error, now time.Time) api.ReplicaSetStatus {
			s := inner(rs, pods, err, now)
			s.Conditions = slices.Clone(s.Conditions)
			change(rs, err, now, &s)
			return s
		}
		return ref
	}
}

func isFailure(c api.ReplicaSetCondition) bool { return c.Type == api.ReplicaSetReplicaFailure }
