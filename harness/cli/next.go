package cli

import "errors"

func init() {
	register("next", &command{
		summary: "not built yet",
		usage:   "next",
		run:     func(env *Env, args []string) error { return errors.New("kata next: not built yet") },
	})
}
