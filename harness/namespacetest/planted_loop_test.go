package namespacetest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of steps 07-10: each breaks one rule of the loop
// (namespaces.Controller's rules 1-9) in the reference's source
// (solutions/12-namespace/controller.go), and must fail exactly the
// steps it lists.

func init() {
	const file = "controller.go"
	addBugs(loopBugs, map[string]planted.Bug{
		// Rule 1: every namespace is queued, deleted or not: a namespace
		// not being deleted is read.
		"every-namespace-queued": {
			Edits: []planted.Edit{{File: file,
				Old: "\tif ns.DeletionTimestamp != nil {\n\t\tnc.nsQueue.Add(ns.Name)\n\t}",
				New: "\tnc.nsQueue.Add(ns.Name)"}},
			Fails: []string{"07-terminating"},
		},
		// Rule 1: a namespace updated wakes no namespace worker: one
		// deleted while Run runs is never emptied.
		"namespace-update-wakes-nobody": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tOnUpdate: func(_, obj api.Object) { nc.enqueueDeleted(obj.(*api.Namespace)) },\n",
				New: ""}},
			Fails: []string{"08-empty", "09-wait", "10-default-service-account"},
		},
		// Rule 2: the namespace is read from the cache, not with Get.
		"no-fresh-get": {
			Edits: []planted.Edit{{File: file,
				Old: "\tns, err := nsClient.Get(ctx, \"\", name)\n\tif client.IsNotFound(err) {\n\t\treturn outcome{}, nil\n\t}",
				New: "\tcached, ok := nc.nsList.Get(\"\", name)\n\tif !ok {\n\t\treturn outcome{}, nil\n\t}\n\tns, err := api.DeepCopy(cached), error(nil)"}},
			Fails: []string{"07-terminating", "08-empty", "09-wait"},
		},
		// Rule 2: a namespace gone (NotFound) is an error of the sync:
		// its key is put back with back-off, for ever.
		"not-found-is-an-error": {
			Edits: []planted.Edit{{File: file,
				Old: "\tns, err := nsClient.Get(ctx, \"\", name)\n\tif client.IsNotFound(err) {\n\t\treturn outcome{}, nil\n\t}",
				New: "\tns, err := nsClient.Get(ctx, \"\", name)"}},
			Fails: []string{"07-terminating", "10-default-service-account"},
		},
		// Rule 3: the phase is written with Update: the apiserver keeps
		// the stored status, Active.
		"terminating-with-update": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tnext.Status.Phase = api.NamespaceTerminating\n\t\twritten, err := nsClient.UpdateStatus(ctx, next)",
				New: "\t\tnext.Status.Phase = api.NamespaceTerminating\n\t\twritten, err := nsClient.Update(ctx, next)"}},
			Fails: []string{"07-terminating"},
		},
		// Rule 3: a Conflict of the phase write is an error of the sync,
		// not read again and tried again at once.
		"terminating-conflict-not-retried": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tif !client.IsConflict(err) {\n\t\t\treturn nil, action, fmt.Errorf(\"namespace: marking namespace %s terminating: %w\", ns.Name, err)",
				New: "\t\tif true {\n\t\t\treturn nil, action, fmt.Errorf(\"namespace: marking namespace %s terminating: %w\", ns.Name, err)"}},
			Fails: []string{"07-terminating"},
		},
		// Rule 3: Action.Terminating is not carried out: the phase stays
		// Active while the content is deleted.
		"terminating-not-written": {
			Edits: []planted.Edit{{File: file, Old: "\tif action.Terminating {\n", New: "\tif false {\n"}},
			Fails: []string{"07-terminating"},
		},
		// Rule 4: the content is deleted in the foreground: every object
		// is held by the foregroundDeletion finalizer.
		"delete-foreground": {
			Edits: []planted.Edit{{File: file, Old: "background := api.DeletePropagationBackground", New: "background := api.DeletePropagationForeground"}},
			Fails: []string{"08-empty", "09-wait"},
		},
		// Rule 4: Options.Kinds is not read: every registered kind, in
		// the registry's order.
		"kinds-not-from-options": {
			Edits: []planted.Edit{{File: file, Old: "\tfor _, k := range nc.opts.Kinds {\n", New: "\tfor _, k := range namespaces.DefaultKinds() {\n"}},
			Fails: []string{"08-empty"},
		},
		// Rule 4: the objects are not listed again after their deletes:
		// Sweep is given what was there before, every object a leftover.
		"no-second-list": {
			Edits: []planted.Edit{{File: file,
				Old: "\titems, err = nc.listAll(ctx, k, ns)\n",
				New: ""}},
			Fails: []string{"08-empty", "09-wait"},
		},
		// Rule 4: a List that fails is taken as an empty one: the kind
		// gives no error.
		"list-error-ignored": {
			Edits: []planted.Edit{{File: file,
				Old: "\titems, err := nc.listAll(ctx, k, ns)\n\tif err != nil {\n\t\treturn failed(err)\n\t}\n",
				New: "\titems, err := nc.listAll(ctx, k, ns)\n\tif err != nil {\n\t\titems = nil\n\t}\n"}},
			Fails: []string{"08-empty"},
		},
		// Rule 5: the conditions are never written.
		"conditions-not-written": {
			Edits: []planted.Edit{{File: file, Old: "\tif changed {\n", New: "\tif changed = false; changed {\n"}},
			Fails: []string{"08-empty", "09-wait"},
		},
		// Rule 6: Retry is not acted on: a pass that failed and changed
		// nothing is never tried again.
		"retry-forgotten": {
			Edits: []planted.Edit{{File: file,
				Old: "\tcase out.retry:\n\t\tnc.nsQueue.AddRateLimited(key)\n",
				New: "\tcase out.retry:\n\t\tnc.nsQueue.Forget(key)\n"}},
			Fails: []string{"08-empty"},
		},
		// Rule 6: After is not acted on: content that remains is looked
		// at again only when the namespace changes.
		"after-forgotten": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tnc.nsQueue.AddAfter(key, out.after)\n",
				New: "\t\tnc.nsQueue.Forget(key)\n"}},
			Fails: []string{"09-wait"},
		},
		// Rule 6: the key comes back after half the wait Next says.
		"after-too-soon": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tnc.nsQueue.AddAfter(key, out.after)\n",
				New: "\t\tnc.nsQueue.AddAfter(key, out.after/2)\n"}},
			Fails: []string{"09-wait"},
		},
		// Rule 6: the finalize write keeps spec.finalizers as they are,
		// "kubernetes" among them: no namespace ever goes.
		"finalize-keeps-finalizers": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tnext.Spec.Finalizers = want\n",
				New: ""}},
			Fails: []string{"08-empty", "09-wait", "10-default-service-account"},
		},
		// Rule 6: a Conflict of the finalize write is an error of the
		// sync, not read again and tried again at once.
		"finalize-conflict-not-retried": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tcase !client.IsConflict(err):\n\t\t\treturn fmt.Errorf(\"namespace: finalizing namespace %s: %w\", ns.Name, err)",
				New: "\t\tdefault:\n\t\t\treturn fmt.Errorf(\"namespace: finalizing namespace %s: %w\", ns.Name, err)"}},
			Fails: []string{"08-empty"},
		},
		// Rule 6: after a Conflict of the finalize write, the write is
		// tried again with the namespace as it was, not read again.
		"finalize-conflict-no-get": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tvar rerr error\n\t\tif ns, rerr = nc.reread(ctx, ns.Name, uid); ns == nil || rerr != nil {\n\t\t\treturn rerr\n\t\t}\n",
				New: "\t\t_ = uid\n"}},
			Fails: []string{"08-empty"},
		},
		// Rule 4: the pods' grace is not given to Sweep (0 for every
		// kind): a pod with a long grace is looked at again too soon.
		"grace-not-given-to-sweep": {
			Edits: []planted.Edit{{File: file,
				Old: "\tres := nc.fn.sweep(ns, k, left, grace)\n",
				New: "\t_ = grace\n\tres := nc.fn.sweep(ns, k, left, 0)\n"}},
			Fails: []string{"09-wait"},
		},
		// Rule 7: a ServiceAccount deleted wakes nobody: it is not made
		// again.
		"account-delete-wakes-nobody": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tOnDelete: func(obj api.Object) { nc.saQueue.Add(obj.GetObjectMeta().Namespace) },\n",
				New: ""}},
			Fails: []string{"10-default-service-account"},
		},
		// Rule 7: a namespace added wakes no ServiceAccount worker: none
		// gets its `default`.
		"namespace-add-wakes-no-accounts": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tOnAdd:    func(obj api.Object, _ bool) { nc.saQueue.Add(obj.GetObjectMeta().Name) },\n",
				New: ""}},
			Fails: []string{"10-default-service-account"},
		},
		// Rule 7: a create that fails is forgotten, not put back with
		// AddRateLimited: the ServiceAccount comes only with the next
		// event.
		"account-create-failure-forgotten": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tif ctx.Err() == nil { // not a shutdown's cancelled call\n\t\t\tnc.saQueue.AddRateLimited(key)\n\t\t}\n\t\treturn true",
				New: "\t\tnc.saQueue.Forget(key)\n\t\treturn true"}},
			Fails: []string{"10-default-service-account"},
		},
		// Rule 7: a create that fails is put back with Add, tried again
		// at once, with no back-off.
		"account-create-failure-no-back-off": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tif ctx.Err() == nil { // not a shutdown's cancelled call\n\t\t\tnc.saQueue.AddRateLimited(key)\n\t\t}\n\t\treturn true",
				New: "\t\tif ctx.Err() == nil { // not a shutdown's cancelled call\n\t\t\tnc.saQueue.Add(key)\n\t\t}\n\t\treturn true"}},
			Fails: []string{"10-default-service-account"},
		},
		// Rule 7: a namespace updated wakes no ServiceAccount worker.
		"namespace-update-wakes-no-accounts": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tOnUpdate: func(_, obj api.Object) { nc.saQueue.Add(obj.GetObjectMeta().Name) },\n",
				New: ""}},
			Fails: []string{"10-default-service-account"},
		},
		// Rule 4: a delete that meets NotFound (the object went
		// meanwhile) is taken as the kind's error.
		"delete-not-found-is-an-error": {
			Edits: []planted.Edit{{File: file,
				Old: "if err != nil && !client.IsNotFound(err) && deleteErr == nil {",
				New: "if err != nil && deleteErr == nil {"}},
			Fails: []string{"08-empty"},
		},
		// Rule 7: AlreadyExists is an error of the sync: the key is put
		// back with back-off.
		"already-exists-is-an-error": {
			Edits: []planted.Edit{{File: file,
				Old: "if err == nil || client.IsAlreadyExists(err) || isNamespaceTerminating(err) {",
				New: "if err == nil || isNamespaceTerminating(err) {"}},
			Fails: []string{"10-default-service-account"},
		},
		// Rule 7: the apiserver's refusal in a namespace being deleted is
		// an error of the sync: the key is put back with back-off.
		"terminating-refusal-is-an-error": {
			Edits: []planted.Edit{{File: file,
				Old: "if err == nil || client.IsAlreadyExists(err) || isNamespaceTerminating(err) {",
				New: "if err == nil || client.IsAlreadyExists(err) {"}},
			Fails: []string{"10-default-service-account"},
			Racy:  []string{"07-terminating"},
		},
		// Rule 7: the ServiceAccount is created with more than its
		// namespace and name.
		"account-with-labels": {
			Edits: []planted.Edit{{File: file,
				Old: "&api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: name, Name: sa}}",
				New: "&api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: name, Name: sa, Labels: map[string]string{\"app\": sa}}}"}},
			Fails: []string{"10-default-service-account"},
		},
		// Rule 8: the cached namespace is given a label before it is
		// asked about.
		"cached-namespace-changed": {
			Edits: []planted.Edit{{File: file,
				Old: "\tcreate := nc.fn.serviceAccounts(*api.DeepCopy(cached), have,",
				New: "\tcached.Labels = map[string]string{\"kubernetes.io/metadata.name\": name}\n\tcreate := nc.fn.serviceAccounts(*cached, have,"}},
			Fails: loopSteps,
		},
		// Rule 9: Run returns with its informers still running.
		"run-leaves-informers-running": {
			Edits: []planted.Edit{{File: file,
				Old: "\tdefer func() {\n\t\tstopInformers()\n\t\tinformers.Wait()\n\t}()\n",
				New: "\t_ = stopInformers\n"}},
			Fails: loopSteps,
		},
		// Rule 9: Run returns once the queues are shut down, without
		// waiting for its workers: one still in a call runs on.
		"run-returns-before-workers": {
			Edits: []planted.Edit{{File: file, Old: "\tworkers.Wait()\n\treturn nil\n}", New: "\treturn nil\n}"}},
			Fails: []string{"10-default-service-account"},
		},
	})
}
