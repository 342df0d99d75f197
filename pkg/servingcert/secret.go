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
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"
)

// maxAttempts bounds how often one ensureSecret reads again after losing a race to another
// replica; each loss means someone else just wrote a usable bundle, so two would do.
const maxAttempts = 5

// ensureSecret returns the bundle of the Secret, after creating the Secret when it does not
// exist or replacing its content when it would not serve dnsNames well past now. Replicas that
// start together race to do this: the API server lets one create (or one update, which carries
// the resourceVersion it read) win, and the others read the winner's bundle and use it.
func ensureSecret(ctx context.Context, client corev1client.SecretsGetter, opts Options, now time.Time) (*Bundle, error) {
	secrets := client.Secrets(opts.SecretNamespace)
	for range maxAttempts {
		secret, err := secrets.Get(ctx, opts.SecretName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			b, err := newBundle(opts.DNSNames, nil)
			if err != nil {
				return nil, err
			}
			_, err = secrets.Create(ctx, &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: opts.SecretName, Namespace: opts.SecretNamespace,
					Labels: map[string]string{"app.kubernetes.io/managed-by": "stencil-apiserver"}},
				Type: corev1.SecretTypeTLS,
				Data: b.secretData(),
			}, metav1.CreateOptions{FieldManager: fieldManager})
			if apierrors.IsAlreadyExists(err) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("creating Secret %s/%s: %w", opts.SecretNamespace, opts.SecretName, err)
			}
			klog.InfoS("Created the serving certificate", "secret", klog.KRef(opts.SecretNamespace, opts.SecretName), "dnsNames", opts.DNSNames, "notAfter", b.NotAfter)
			return b, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading Secret %s/%s: %w", opts.SecretNamespace, opts.SecretName, err)
		}
		current, why := fromSecret(secret)
		if why == nil {
			if why = current.check(opts.DNSNames, now); why == nil {
				return current, nil
			}
		}
		if secret.Type != corev1.SecretTypeTLS {
			return nil, fmt.Errorf("the Secret %s/%s is of type %s, not %s: delete it and the server creates it",
				opts.SecretNamespace, opts.SecretName, secret.Type, corev1.SecretTypeTLS)
		}
		next, err := newBundle(opts.DNSNames, current)
		if err != nil {
			return nil, err
		}
		updated := secret.DeepCopy()
		updated.Data = next.secretData()
		_, err = secrets.Update(ctx, updated, metav1.UpdateOptions{FieldManager: fieldManager})
		if apierrors.IsConflict(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("updating Secret %s/%s: %w", opts.SecretNamespace, opts.SecretName, err)
		}
		klog.InfoS("Replaced the serving certificate", "secret", klog.KObj(secret), "reason", why.Error(), "notAfter", next.NotAfter)
		return next, nil
	}
	return nil, fmt.Errorf("the Secret %s/%s changed %d times while it was read: giving up for now", opts.SecretNamespace, opts.SecretName, maxAttempts)
}
