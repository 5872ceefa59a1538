package workqueue_test

import (
	"errors"
	"fmt"

	"github.com/kubekata/kubekata/harness/workqueue"
)

// A controller's worker: Get a key, sync it, Forget it on success or
// AddRateLimited it on failure, and always Done it.
func ExampleQueue() {
	q := workqueue.New(workqueue.Options{})
	q.Add("default/web")
	q.Add("default/db")
	q.Add("default/web") // already queued: dropped
	fmt.Println("queued:", q.Len())

	failed := false
	sync := func(key string) error {
		if key == "default/db" && !failed {
			failed = true
			return errors.New("conflict")
		}
		return nil
	}
	for range 3 {
		key, shutdown := q.Get()
		if shutdown {
			break
		}
		if err := sync(key); err != nil {
			fmt.Println(key, "failed:", err)
			q.AddRateLimited(key) // back in 5ms
		} else {
			fmt.Println(key, "synced")
			q.Forget(key)
		}
		q.Done(key)
	}
	q.ShutDown()
	// Output:
	// queued: 2
	// default/web synced
	// default/db failed: conflict
	// default/db synced
}
