package cli

import "errors"

func init() {
	register("classroom", &command{
		summary: "not built yet",
		usage:   "classroom",
		run:     func(env *Env, args []string) error { return errors.New("kata classroom: not built yet") },
	})
}
