package scenario

import (
	"os"
	"testing"
)

func TestNamespaceRules(t *testing.T) {
	b, err := os.ReadFile("../servicestest/testdata/cluster-ip.rules")
	if err != nil {
		t.Fatal(err)
	}
	got := namespaceRules(string(b), "demo")
	want := `*filter
COMMIT
*nat
:KUBE-SVC-CKSGFIWDCRJNJJIQ - [0:0]
:KUBE-SEP-EZM4EWBXYBLXRQKL - [0:0]
-A KUBE-SERVICES -m comment --comment "demo/echo cluster IP" -m tcp -p tcp -d 10.96.200.7 --dport 80 -j KUBE-SVC-CKSGFIWDCRJNJJIQ
-A KUBE-SVC-CKSGFIWDCRJNJJIQ -m comment --comment "demo/echo -> 10.244.3.4:5678" -j KUBE-SEP-EZM4EWBXYBLXRQKL
-A KUBE-SEP-EZM4EWBXYBLXRQKL -m comment --comment demo/echo -s 10.244.3.4 -j KUBE-MARK-MASQ
-A KUBE-SEP-EZM4EWBXYBLXRQKL -m comment --comment demo/echo -m tcp -p tcp -j DNAT --to-destination 10.244.3.4:5678
COMMIT
`
	if got != want {
		t.Errorf("namespaceRules(cluster-ip.rules, demo) =\n%s\nwant\n%s", got, want)
	}
	if got := namespaceRules(string(b), "dem"); got != "*filter\nCOMMIT\n*nat\nCOMMIT\n" {
		t.Errorf("namespaceRules(cluster-ip.rules, dem) =\n%s\nwant the headers alone: dem is not demo", got)
	}
}
