package cli

import "errors"

func init() {
	register("test", &command{
		summary: "not built yet",
		usage:   "test",
		run:     func(env *Env, args []string) error { return errors.New("kata test: not built yet") },
	})
}
