package cli

import "errors"

func init() {
	register("list", &command{
		summary: "not built yet",
		usage:   "list",
		run:     func(env *Env, args []string) error { return errors.New("kata list: not built yet") },
	})
}
