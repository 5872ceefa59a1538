// Package namespace is the reference of exercise 12: the namespace
// controller and the ServiceAccount controller of kube-controller-manager
// (upstream's pkg/controller/namespace and pkg/controller/serviceaccount),
// as contract harness/namespaces states them.
//
// Its responsibilities:
//
//  1. Decide (decide.go): what a sync does with a namespace: nothing,
//     mark it Terminating, empty it (namespacedResourcesDeleter.Delete,
//     updateNamespaceStatusFunc, finalized).
//  2. Sweep and GraceEstimate (sweep.go): what one kind left behind
//     after its objects were deleted, and how long the pods asked to
//     stop (deleteAllContentForGroupVersionResource,
//     estimateGracefulTerminationForPods).
//  3. Conditions (conditions.go): the namespace's five deletion
//     conditions after a pass (status_condition_utils.go:
//     ProcessContentTotals, makeDeleteContentCondition, updateConditions).
//  4. Next (next.go): what follows a pass: retry with back-off, look again
//     after estimate/2+1 seconds, or finalize (deleteAllContent,
//     syncNamespaceFromKey).
//  5. Finalize (finalize.go): spec.finalizers without "kubernetes", as
//     the finalize subresource is sent (finalizeNamespace).
//  6. ServiceAccountsToCreate (serviceaccounts.go): the ServiceAccounts
//     an Active namespace lacks (ServiceAccountsController.syncNamespace).
//  7. New (controller.go): the loop of the two controllers, which runs
//     the functions above over informers and work queues and carries out
//     what they say through the API.
//
// The functions take plain data and change nothing they are given: what
// they return shares no memory with their input that a caller could
// change.
package namespace
