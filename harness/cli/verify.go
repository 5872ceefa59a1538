package cli

import "errors"

func init() {
	register("verify", &command{
		summary: "not built yet",
		usage:   "verify",
		run:     func(env *Env, args []string) error { return errors.New("kata verify: not built yet") },
	})
}
