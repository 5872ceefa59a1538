package cli

import "errors"

func init() {
	register("hint", &command{
		summary: "not built yet",
		usage:   "hint",
		run:     func(env *Env, args []string) error { return errors.New("kata hint: not built yet") },
	})
}
