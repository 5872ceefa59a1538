// Command kata is the kubekata learner loop, maintainers' check and grader.
// It only wires: everything it does lives in cmd/kata/internal/cli.
package main

import (
	"os"

	"github.com/kubekata/kubekata/cmd/kata/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
