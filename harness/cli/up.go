package cli

import "errors"

func init() {
	register("up", &command{
		summary: "not built yet",
		usage:   "up",
		run:     func(env *Env, args []string) error { return errors.New("kata up: not built yet") },
	})
}
