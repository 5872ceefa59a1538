package cli

import "errors"

func init() {
	register("reset", &command{
		summary: "not built yet",
		usage:   "reset",
		run:     func(env *Env, args []string) error { return errors.New("kata reset: not built yet") },
	})
}
