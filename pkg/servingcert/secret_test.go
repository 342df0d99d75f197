/*
Copyright The Stencil Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package servingcert

import (
	"bytes"
	"context"
	"crypto/x509"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	certutil "k8s.io/client-go/util/cert"
)

var testOpts = Options{SecretNamespace: "stencil-system", SecretName: "serving", DNSNames: []string{"stencil-apiserver.stencil-system.svc"}}

// verifies fails the test unless b's certificate is valid for name at now under b's CAs.
func verifies(t *testing.T, b *Bundle, name string, now time.Time) {
	t.Helper()
	leaf, err := b.leaf()
	if err != nil {
		t.Fatal(err)
	}
	pool, err := certutil.NewPoolFromBytes(b.CABundle)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: pool, CurrentTime: now}); err != nil {
		t.Fatalf("the certificate does not verify for %s: %v", name, err)
	}
}

func storedBundle(t *testing.T, client *fake.Clientset) *Bundle {
	t.Helper()
	s, err := client.CoreV1().Secrets(testOpts.SecretNamespace).Get(context.Background(), testOpts.SecretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Type != corev1.SecretTypeTLS {
		t.Fatalf("Secret type %s", s.Type)
	}
	b, err := fromSecret(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReplicasStartingTogetherShareOneCertificate(t *testing.T) {
	client := fake.NewClientset()
	const replicas = 8
	bundles := make([]*Bundle, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() {
			b, err := ensureSecret(context.Background(), client.CoreV1(), testOpts, time.Now())
			if err != nil {
				t.Error(err)
			}
			bundles[i] = b
		})
	}
	wg.Wait()
	stored := storedBundle(t, client)
	for i, b := range bundles {
		if !stored.sameAs(b) {
			t.Errorf("replica %d serves another certificate than the Secret's", i)
		}
	}
	verifies(t, stored, testOpts.DNSNames[0], time.Now())
	if creates := countActions(client, "create"); creates < 1 {
		t.Errorf("no create among the actions")
	}
}

func TestCertificateRenewedBeforeItExpires(t *testing.T) {
	client := fake.NewClientset()
	first, err := ensureSecret(context.Background(), client.CoreV1(), testOpts, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	again, err := ensureSecret(context.Background(), client.CoreV1(), testOpts, first.NotAfter.Add(-RenewBefore-time.Hour))
	if err != nil || !again.sameAs(first) {
		t.Fatalf("a certificate not yet due was replaced (err %v)", err)
	}
	renewed, err := ensureSecret(context.Background(), client.CoreV1(), testOpts, first.NotAfter.Add(-RenewBefore+time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if renewed.sameAs(first) || !storedBundle(t, client).sameAs(renewed) {
		t.Fatal("a certificate due for renewal was kept")
	}
	verifies(t, renewed, testOpts.DNSNames[0], time.Now())
	// A replica still serving the first certificate must stay trusted under the new bundle.
	verifies(t, &Bundle{CABundle: renewed.CABundle, CertPEM: first.CertPEM}, testOpts.DNSNames[0], time.Now())
	cas, _ := certutil.ParseCertsPEM(renewed.CABundle)
	if len(cas) != 2 {
		t.Fatalf("the bundle holds %d CAs, want the new one and the previous one", len(cas))
	}
}

func TestCertificateReplacedWhenNamesOrContentAreWrong(t *testing.T) {
	client := fake.NewClientset(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: testOpts.SecretNamespace, Name: testOpts.SecretName},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: []byte("garbage"), corev1.TLSPrivateKeyKey: []byte("garbage")},
	})
	b, err := ensureSecret(context.Background(), client.CoreV1(), testOpts, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	verifies(t, b, testOpts.DNSNames[0], time.Now())

	moved := testOpts
	moved.DNSNames = []string{"stencil-apiserver.elsewhere.svc"}
	b2, err := ensureSecret(context.Background(), client.CoreV1(), moved, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	verifies(t, b2, "stencil-apiserver.elsewhere.svc", time.Now())
}

func TestSecretOfAnotherTypeIsNotOverwritten(t *testing.T) {
	client := fake.NewClientset(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: testOpts.SecretNamespace, Name: testOpts.SecretName},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"password": []byte("keep me")},
	})
	if _, err := ensureSecret(context.Background(), client.CoreV1(), testOpts, time.Now()); err == nil {
		t.Fatal("an Opaque Secret of the same name was taken over")
	}
	s, _ := client.CoreV1().Secrets(testOpts.SecretNamespace).Get(context.Background(), testOpts.SecretName, metav1.GetOptions{})
	if string(s.Data["password"]) != "keep me" {
		t.Fatal("the Opaque Secret was changed")
	}
}

// TestLosingTheReplacementRaceUsesTheWinner lets another replica replace the certificate (for
// new names) between this one's read and its update: the update conflicts and the winner's
// certificate is served.
func TestLosingTheReplacementRaceUsesTheWinner(t *testing.T) {
	client := fake.NewClientset()
	first, err := ensureSecret(context.Background(), client.CoreV1(), testOpts, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	moved := testOpts
	moved.DNSNames = []string{"stencil-apiserver.elsewhere.svc"}
	winner, err := newBundle(moved.DNSNames, first)
	if err != nil {
		t.Fatal(err)
	}
	raced := false
	client.PrependReactor("update", "secrets", func(clienttesting.Action) (bool, runtime.Object, error) {
		if raced {
			return false, nil, nil
		}
		raced = true
		s, err := client.Tracker().Get(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, testOpts.SecretNamespace, testOpts.SecretName)
		if err != nil {
			return true, nil, err
		}
		won := s.(*corev1.Secret).DeepCopy()
		won.Data = winner.secretData()
		if err := client.Tracker().Update(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, won, testOpts.SecretNamespace); err != nil {
			return true, nil, err
		}
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "secrets"}, testOpts.SecretName, nil)
	})
	got, err := ensureSecret(context.Background(), client.CoreV1(), moved, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !raced || !got.sameAs(winner) {
		t.Fatalf("raced %v; the loser does not serve the winner's certificate", raced)
	}
}

func TestProviderNotifiesOnlyOnChange(t *testing.T) {
	p := &provider{}
	var l countingListener
	p.AddListener(&l)
	b, err := newBundle(testOpts.DNSNames, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.set(b)
	p.set(b)
	if l.n != 1 {
		t.Fatalf("%d notifications for one change", l.n)
	}
	if cert, key := p.CurrentCertKeyContent(); string(cert) != string(b.CertPEM) || string(key) != string(b.KeyPEM) {
		t.Fatal("the provider serves something else")
	}
}

type countingListener struct{ n int }

func (l *countingListener) Enqueue() { l.n++ }

func countActions(client *fake.Clientset, verb string) int {
	n := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == verb {
			n++
		}
	}
	return n
}

// sameAs says whether two bundles serve the same certificate with the same CAs.
func (b *Bundle) sameAs(o *Bundle) bool {
	return o != nil && bytes.Equal(b.CABundle, o.CABundle) && bytes.Equal(b.CertPEM, o.CertPEM) && bytes.Equal(b.KeyPEM, o.KeyPEM)
}
