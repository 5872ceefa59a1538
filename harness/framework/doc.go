// Package framework is the contract of exercise 06, the scheduler (seed
// 000 §2.4), in the names of upstream's scheduling framework
// (k8s.io/kubernetes/pkg/scheduler/framework: Status, NodeInfo, Filter,
// Score, NormalizeScore, FitError, the scheduling queue).
//
// The scheduler watches for pods with no node, keeps the nodes that can
// take the pod (filter), ranks them (score) and binds the pod to the best
// one through the apiserver. The exercise builds it as pure cores first
// and the loop last, and this package gives what they meet on:
//
//  1. Status and Code: what a filter plugin says about one node (fits,
//     or not and why, and whether evicting pods could help), with the
//     plugin's name, as upstream's *framework.Status.
//  2. NodeInfo: a node with the pods bound to it and what they request,
//     the snapshot every plugin reads (upstream's NodeInfo), and
//     Resource, the amounts it sums.
//  3. The decision's shapes: PluginScore and NodePluginScores (the
//     weighted scores of each plugin on a node and their total),
//     ScheduleOptions and ScheduleResult (upstream's ScheduleResult),
//     and FitError with its Diagnosis, the error when no node fits.
//  4. Queue: the scheduling queue's contract (an active queue by
//     priority then time, a back-off queue, an unschedulable set), as a
//     state machine to which the caller gives the time of each call, so
//     that a 5-minute wait is tested in a microsecond and the contract
//     crosses a process boundary as plain data.
//  5. Options and Scheduler: what the loop is built from and how it
//     runs, until its context ends.
//
// Everything here is plain data that crosses a process boundary as JSON
// (DESIGN.md rule 9). Nothing here decides anything: which node fits,
// the scores, the messages, the back-off and the loop are the exercise's.
package framework
