package admissiontest

// Steps 07-13: admission. PLACEHOLDER from helper A so that the skeleton
// compiles: helper B owns this file and replaces these bodies.

func defaults(e *env)           { e.t.Fatalf("admissiontest: step 07 is not written yet") }
func namespaceLifecycle(e *env) { e.t.Fatalf("admissiontest: step 08 is not written yet") }
func limitRange(e *env)         { e.t.Fatalf("admissiontest: step 09 is not written yet") }
func resourceQuota(e *env)      { e.t.Fatalf("admissiontest: step 10 is not written yet") }
func validatingPolicy(e *env)   { e.t.Fatalf("admissiontest: step 11 is not written yet") }
func nodeRestriction(e *env)    { e.t.Fatalf("admissiontest: step 12 is not written yet") }
func writesOnly(e *env)         { e.t.Fatalf("admissiontest: step 13 is not written yet") }
