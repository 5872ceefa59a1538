package remote

import (
	"bytes"
	"fmt"
	"go/format"
	"regexp"
	"text/template"
)

// binding is how one exercise crosses the boundary: the program that
// serves its contract and the test that grades it.
type binding struct {
	test        string   // the manifest's test function
	imports     []string // what the grader's test imports besides remote
	mainImports []string // what the program imports besides remote and impl
	service     string   // the expression Serve gets, over the package "impl"
	run         string   // the statement the grader's test runs, with p the Program
}

var bindings = map[string]binding{
	"01-reconcile": {
		test:    "TestReconcile",
		imports: []string{"github.com/kubekata/kubekata/harness/reconciletest"},
		service: "remote.ReconcileService(impl.Plan)",
		run:     "reconciletest.Run(t, remote.Plan(p))",
	},
	"02-labels": {
		test:        "TestLabels",
		imports:     []string{"github.com/kubekata/kubekata/harness/labelstest"},
		mainImports: []string{"github.com/kubekata/kubekata/harness/labelstest"},
		service: `remote.LabelsService(labelstest.Impl{
		IsLabelKey:              impl.IsLabelKey,
		IsLabelValue:            impl.IsLabelValue,
		Parse:                   impl.Parse,
		Matches:                 impl.Matches,
		LabelSelectorAsSelector: impl.LabelSelectorAsSelector,
		String:                  impl.String,
	})`,
		run: "labelstest.Run(t, remote.Labels(p))",
	},
	"03-store": {
		test:    "TestStore",
		imports: []string{"github.com/kubekata/kubekata/harness/storetest"},
		service: "remote.StoreService(impl.Open)",
		run:     "storetest.Run(t, remote.Opener(p))",
	},
	"04-apiserver": {
		test:    "TestAPIServer",
		imports: []string{"github.com/kubekata/kubekata/harness/apiservertest"},
		service: "remote.APIServerService(impl.New)",
		run:     "apiservertest.Run(t, remote.NewAPIServer(p))",
	},
	"05-admission": {
		test:        "TestAdmission",
		imports:     []string{"github.com/kubekata/kubekata/harness/admissiontest"},
		mainImports: []string{"github.com/kubekata/kubekata/harness/admissiontest"},
		service: `remote.AdmissionService(admissiontest.Impl{
		NewRequestInfo: impl.NewRequestInfo,
		NewAuthorizer:  impl.NewAuthorizer,
		New:            impl.New,
	})`,
		run: "admissiontest.Run(t, remote.Admission(p))",
	},
	"06-scheduler": {
		test:        "TestScheduler",
		imports:     []string{"github.com/kubekata/kubekata/harness/schedulertest"},
		mainImports: []string{"github.com/kubekata/kubekata/harness/schedulertest"},
		service: `remote.SchedulerService(schedulertest.Impl{
		NewNodeInfo: impl.NewNodeInfo,
		Filter:      impl.Filter,
		Score:       impl.Score,
		Schedule:    impl.Schedule,
		NewQueue:    impl.NewQueue,
		New:         impl.New,
	})`,
		run: "schedulertest.Run(t, remote.Scheduler(p))",
	},
	"07-replicaset": {
		test:        "TestReplicaSet",
		imports:     []string{"github.com/kubekata/kubekata/harness/replicasettest"},
		mainImports: []string{"github.com/kubekata/kubekata/harness/replicasettest"},
		service: `remote.ReplicaSetService(replicasettest.Impl{
		NewPod:          impl.NewPod,
		Claim:           impl.Claim,
		NewExpectations: impl.NewExpectations,
		Status:          impl.Status,
		New:             impl.New,
	})`,
		run: "replicasettest.Run(t, remote.ReplicaSet(p))",
	},
	"08-garbagecollector": {
		test:        "TestGarbageCollector",
		imports:     []string{"github.com/kubekata/kubekata/harness/gctest"},
		mainImports: []string{"github.com/kubekata/kubekata/harness/gctest"},
		service: `remote.GCService(gctest.Impl{
		Classify: impl.Classify,
		Decide:   impl.Decide,
		New:      impl.New,
	})`,
		run: "gctest.Run(t, remote.GC(p))",
	},
	"09-deployment": {
		test:        "TestDeployment",
		imports:     []string{"github.com/kubekata/kubekata/harness/rollouttest"},
		mainImports: []string{"github.com/kubekata/kubekata/harness/rollouttest"},
		service: `remote.DeploymentService(rollouttest.Impl{
		Bounds: impl.Bounds,
		Plan:   impl.Plan,
		New:    impl.New,
	})`,
		run: "rollouttest.Run(t, remote.Deployment(p))",
	},
	"10-job": {
		test:        "TestJob",
		imports:     []string{"github.com/kubekata/kubekata/harness/jobtest"},
		mainImports: []string{"github.com/kubekata/kubekata/harness/jobtest"},
		service: `remote.JobService(jobtest.Impl{
		Plan:    impl.Plan,
		Cleanup: impl.Cleanup,
		New:     impl.New,
	})`,
		run: "jobtest.Run(t, remote.Job(p))",
	},
	"11-nodelifecycle": {
		test:        "TestNodeLifecycle",
		imports:     []string{"github.com/kubekata/kubekata/harness/nodelifecycletest"},
		mainImports: []string{"github.com/kubekata/kubekata/harness/nodelifecycletest"},
		service: `remote.NodeLifecycleService(nodelifecycletest.Impl{
		Health:     impl.Health,
		Decide:     impl.Decide,
		SwapTaints: impl.SwapTaints,
		Disruption: impl.Disruption,
		Evict:      impl.Evict,
		NotReady:   impl.NotReady,
		New:        impl.New,
	})`,
		run: "nodelifecycletest.Run(t, remote.NodeLifecycle(p))",
	},
	"12-namespace": {
		test:        "TestNamespace",
		imports:     []string{"github.com/kubekata/kubekata/harness/namespacetest"},
		mainImports: []string{"github.com/kubekata/kubekata/harness/namespacetest"},
		service: `remote.NamespaceService(namespacetest.Impl{
		Decide:                  impl.Decide,
		Sweep:                   impl.Sweep,
		GraceEstimate:           impl.GraceEstimate,
		Conditions:              impl.Conditions,
		Next:                    impl.Next,
		Finalize:                impl.Finalize,
		ServiceAccountsToCreate: impl.ServiceAccountsToCreate,
		New:                     impl.New,
	})`,
		run: "namespacetest.Run(t, remote.Namespace(p))",
	},
	"13-kubelet": {
		test:        "TestKubelet",
		imports:     []string{"github.com/kubekata/kubekata/harness/kubelettest"},
		mainImports: []string{"github.com/kubekata/kubekata/harness/kubelettest"},
		service: `remote.KubeletService(kubelettest.Impl{
		SandboxChanged:    impl.SandboxChanged,
		ShouldRestart:     impl.ShouldRestart,
		Actions:           impl.Actions,
		BackoffNext:       impl.BackoffNext,
		InBackoff:         impl.InBackoff,
		ContainerStatuses: impl.ContainerStatuses,
		Phase:             impl.Phase,
		Conditions:        impl.Conditions,
		ProbeDue:          impl.ProbeDue,
		ProbeNext:         impl.ProbeNext,
		GracePeriod:       impl.GracePeriod,
		New:               impl.New,
	})`,
		run: "kubelettest.Run(t, remote.Kubelet(p))",
	},
	"14-services": {
		test:        "TestServices",
		imports:     []string{"github.com/kubekata/kubekata/harness/servicestest"},
		mainImports: []string{"github.com/kubekata/kubekata/harness/servicestest"},
		service: `remote.ServicesService(servicestest.Impl{
		NewIPRange:   impl.NewIPRange,
		NewPortRange: impl.NewPortRange,
		Slices:       impl.Slices,
		Rules:        impl.Rules,
		PartialRules: impl.PartialRules,
		New:          impl.New,
		Lookup:       impl.Lookup,
		Env:          impl.Env,
	})`,
		run: "servicestest.Run(t, remote.Services(p))",
	},
}

// Exercises lists the exercises that can be graded across the boundary,
// in course order.
func Exercises() []string {
	return []string{"01-reconcile", "02-labels", "03-store", "04-apiserver", "05-admission", "06-scheduler", "07-replicaset", "08-garbagecollector", "09-deployment", "10-job", "11-nodelifecycle", "12-namespace", "13-kubelet", "14-services"}
}

var mainTemplate = template.Must(template.New("main").Parse(`// Code generated by kata for grading; DO NOT EDIT.

// The learner's program for exercise {{.Exercise}}: it serves the
// exercise's contract to the grader, and nothing else.
package main

import (
	impl {{printf "%q" .ImportPath}}
{{range .Imports}}	{{printf "%q" .}}
{{end}}	"github.com/kubekata/kubekata/harness/remote"
)

func main() {
	remote.Serve({{.Service}})
}
`))

var testTemplate = template.Must(template.New("test").Parse(`// Code generated by kata for grading; DO NOT EDIT.

package {{.Package}}

// The suite of exercise {{.Exercise}}, run against the learner's program
// named by ${{.Env}}.

import (
	"testing"

{{range .Imports}}	{{printf "%q" .}}
{{end}}	"github.com/kubekata/kubekata/harness/remote"
)

func {{.Test}}(t *testing.T) {
	p := remote.FromEnv(t)
	{{.Run}}
}
`))

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ImplMain is the source of the learner's program for exercise: a main
// package that imports the learner's package at importPath and serves
// its contract.
func ImplMain(exercise, importPath string) ([]byte, error) {
	b, ok := bindings[exercise]
	if !ok {
		return nil, fmt.Errorf("remote: exercise %q has no remote binding (have %v)", exercise, Exercises())
	}
	if importPath == "" {
		return nil, fmt.Errorf("remote: ImplMain(%q): empty import path", exercise)
	}
	return render(mainTemplate, map[string]any{"Exercise": exercise, "ImportPath": importPath, "Imports": b.mainImports, "Service": b.service})
}

// GradeTest is the source of a _test.go file of package pkg that runs
// exercise's suite, as the manifest's test function, against the program
// named by $KATA_IMPL. It imports only harness packages.
func GradeTest(exercise, pkg string) ([]byte, error) {
	b, ok := bindings[exercise]
	if !ok {
		return nil, fmt.Errorf("remote: exercise %q has no remote binding (have %v)", exercise, Exercises())
	}
	if !identifier.MatchString(pkg) {
		return nil, fmt.Errorf("remote: GradeTest(%q, %q): %q is not a package name", exercise, pkg, pkg)
	}
	return render(testTemplate, map[string]any{"Exercise": exercise, "Package": pkg, "Env": EnvImpl, "Imports": b.imports, "Test": b.test, "Run": b.run})
}

func render(t *template.Template, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("remote: generated source does not parse: %w\n%s", err, buf.Bytes())
	}
	return src, nil
}
