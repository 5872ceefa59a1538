package cli

import "errors"

func init() {
	register("watch", &command{
		summary: "not built yet",
		usage:   "watch",
		run:     func(env *Env, args []string) error { return errors.New("kata watch: not built yet") },
	})
}
