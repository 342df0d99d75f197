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

package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"

	"stencil.dev/stencil/pkg/apiserver"
)

// The hash key keys the hashes of what instances render (an instance's appliedHash, a
// preview's renderedHash), which users read who may not read every value the objects hold: a
// plain digest would let them test guesses of such a value offline. Every replica must have
// the same key (a preview on one replica gives the plan hash a rollout checks on the leader),
// and the key must outlive restarts (an appliedHash that changes makes every instance apply
// again once). So it lives in a Secret the first replica creates, as the serving certificate
// does: no step for the administrator, readable only by the server's ServiceAccount, stored
// as the cluster stores Secrets (encrypted at rest where the cluster is), and rotated by
// deleting the Secret and restarting the replicas. Local mode keeps it in a file of its
// directory.

// HashKeyBytes is the length of a key the server makes: HMAC-SHA256's block of entropy.
const HashKeyBytes = 32

// hashKeyData is the key of the key in its Secret.
const hashKeyData = "hash.key"

// HashKeyOptions say where the hash key is kept.
type HashKeyOptions struct {
	// Secret is NAMESPACE/NAME of the Secret; empty, in a cluster, is a key of this process
	// alone.
	Secret string
	// key is the key loaded by load.
	key []byte
}

// AddFlags adds the flag of the hash key.
func (h *HashKeyOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&h.Secret, "hash-key-secret", h.Secret,
		"NAMESPACE/NAME of a Secret holding the key (data \""+hashKeyData+"\", 32 bytes or more) of the HMAC that keys the hashes "+
			"of what TemplateInstances render (status.templateRevision.appliedHash, a preview's renderedHash and plan hash). "+
			"The first replica creates it with a random key. Needs get on that Secret and create on Secrets. Without it, "+
			"each replica makes a key of its own at start: plan hashes then differ between replicas and restarts.")
}

// Validate reports a malformed reference and one local mode does not use.
func (h *HashKeyOptions) Validate(local bool) []error {
	if h.Secret == "" {
		return nil
	}
	var errs []error
	if _, _, err := h.secretRef(); err != nil {
		errs = append(errs, err)
	}
	if local {
		errs = append(errs, errors.New("--hash-key-secret needs a cluster; --local keeps the key in --local-dir"))
	}
	return errs
}

func (h *HashKeyOptions) secretRef() (namespace, name string, err error) {
	namespace, name, ok := strings.Cut(h.Secret, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("--hash-key-secret must be NAMESPACE/NAME, not %q", h.Secret)
	}
	return namespace, name, nil
}

// load reads (or first makes) the key: from the Secret in a cluster, from localDir's file in
// local mode.
func (h *HashKeyOptions) load(ctx context.Context, ro *genericoptions.RecommendedOptions, localDir string) error {
	switch {
	case localDir != "":
		key, err := loadKeyFile(filepath.Join(localDir, hashKeyData))
		h.key = key
		return err
	case h.Secret != "":
		namespace, name, err := h.secretRef()
		if err != nil {
			return err
		}
		config, err := clusterConfig(ro)
		if err != nil {
			return err
		}
		client, err := corev1client.NewForConfig(config)
		if err != nil {
			return err
		}
		h.key, err = ensureKeySecret(ctx, client, namespace, name)
		return err
	}
	return nil
}

// ApplyTo gives c the key; without one loaded, a random key of this process.
func (h *HashKeyOptions) ApplyTo(c *apiserver.ExtraConfig) error {
	if h.key == nil {
		key, err := newKey()
		if err != nil {
			return err
		}
		klog.InfoS("No --hash-key-secret: this replica keys rendered hashes with a key of its own, so plan hashes differ between replicas and restarts")
		h.key = key
	}
	c.HashKey = h.key
	return nil
}

func newKey() ([]byte, error) {
	key := make([]byte, HashKeyBytes)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return key, nil
}

// loadKeyFile reads the key of path, or writes a new one there (mode 0600) first.
func loadKeyFile(path string) ([]byte, error) {
	key, err := os.ReadFile(path)
	if err == nil {
		if len(key) < HashKeyBytes {
			return nil, fmt.Errorf("the hash key %s holds %d bytes, fewer than %d: delete it and the server makes one", path, len(key), HashKeyBytes)
		}
		return key, nil
	}
	if !os.IsNotExist(err) {
		return nil, err
	}
	if key, err = newKey(); err != nil {
		return nil, err
	}
	return key, os.WriteFile(path, key, 0o600)
}

// ensureKeySecret returns the key of the Secret, creating the Secret with a new key when it
// does not exist. Replicas that start together race: one create wins, the others read it.
func ensureKeySecret(ctx context.Context, client corev1client.SecretsGetter, namespace, name string) ([]byte, error) {
	secrets := client.Secrets(namespace)
	for range maxKeyAttempts {
		secret, err := secrets.Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			key := secret.Data[hashKeyData]
			if len(key) < HashKeyBytes {
				return nil, fmt.Errorf("Secret %s/%s holds no %q of %d bytes or more: delete it and the server makes one", namespace, name, hashKeyData, HashKeyBytes)
			}
			return key, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("reading Secret %s/%s: %w", namespace, name, err)
		}
		key, err := newKey()
		if err != nil {
			return nil, err
		}
		_, err = secrets.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "stencil-apiserver"}},
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{hashKeyData: key},
		}, metav1.CreateOptions{FieldManager: "stencil-apiserver"})
		switch {
		case err == nil:
			klog.InfoS("Created the hash key", "secret", klog.KRef(namespace, name))
			return key, nil
		case !apierrors.IsAlreadyExists(err):
			return nil, fmt.Errorf("creating Secret %s/%s: %w", namespace, name, err)
		}
	}
	return nil, fmt.Errorf("Secret %s/%s: lost the race to create it %d times", namespace, name, maxKeyAttempts)
}

// maxKeyAttempts bounds the reads after a lost race: one loss means the winner's key is there.
const maxKeyAttempts = 3
