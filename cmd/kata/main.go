// Command kata is the kubekata learner loop, maintainers' check and grader.
// It only wires: everything it does lives in harness/cli.
package main

import (
	"os"

	"github.com/kubekata/kubekata/harness/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
