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

package publish

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
	"stencil.dev/stencil/pkg/artifact/server"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// Client acts in the target cluster as one requester: the cluster enforces the requester's
// RBAC on every artifact written and read.
type Client interface {
	// Get reads an object.
	Get(ctx context.Context, resource schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error)
	// Apply applies obj with server-side apply under the controller's field manager, to the
	// object or, with subresource "status", to its status.
	Apply(ctx context.Context, resource schema.GroupVersionResource, namespace, name string, obj *unstructured.Unstructured, subresource string) (*unstructured.Unstructured, error)
	// List lists the objects of a namespace.
	List(ctx context.Context, resource schema.GroupVersionResource, namespace string) (*unstructured.UnstructuredList, error)
}

// Storage is what an instance's ConfigMap holds: its last artifact.
type Storage struct {
	Digest, Revision, Token string
	// Archive is the tarball; Intact says its digest is Digest.
	Archive []byte
	Intact  bool
	// Objects are the objects the artifact holds.
	Objects []templatesv1.TemplateInstanceObject
}

// ReadStorage reads an instance's ConfigMap; nil when there is none.
func ReadStorage(ctx context.Context, c Client, namespace, instance string) (*Storage, error) {
	cm, err := c.Get(ctx, ConfigMaps, namespace, StorageName(instance))
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	encoded, _, _ := unstructured.NestedString(cm.Object, "binaryData", ArchiveKey)
	archive, _ := base64.StdEncoding.DecodeString(encoded)
	s := &Storage{Digest: data[DigestKey], Revision: data[RevisionKey], Token: data[TokenKey], Archive: archive}
	s.Intact = s.Digest != "" && artifact.Digest(archive) == s.Digest
	s.Objects = storedObjects(data[ObjectsKey])
	return s, nil
}

// StoredObjects are the objects the artifact of an instance's storage holds, read from the
// storage ConfigMap's data: what Flux applied, or will, and prunes when a render drops one.
func StoredObjects(data map[string][]byte) []templatesv1.TemplateInstanceObject {
	return storedObjects(string(data[ObjectsKey]))
}

// storedObjects parses the storage's list of objects, one "apiVersion kind namespace name" a
// line, and " retain" after an object the template retains (storageLine).
func storedObjects(list string) []templatesv1.TemplateInstanceObject {
	var out []templatesv1.TemplateInstanceObject
	for _, line := range strings.Split(list, "\n") {
		f := strings.Split(line, " ")
		if len(f) != 4 && (len(f) != 5 || f[4] != string(templatesv1.LifecycleRetain)) {
			continue
		}
		o := templatesv1.TemplateInstanceObject{APIVersion: f[0], Kind: f[1], Namespace: f[2], Name: f[3]}
		if len(f) == 5 {
			o.Lifecycle = templatesv1.LifecycleRetain
		}
		out = append(out, o)
	}
	return out
}

// storageLine is o as the storage's list of objects holds it.
func storageLine(o templatesv1.TemplateInstanceObject) string {
	fields := []string{o.APIVersion, o.Kind, o.Namespace, o.Name}
	if o.Lifecycle == templatesv1.LifecycleRetain {
		fields = append(fields, string(templatesv1.LifecycleRetain))
	}
	return strings.Join(fields, " ")
}

// Publisher writes an instance's artifact and its ExternalArtifact.
type Publisher struct {
	// URL is the artifact server's base URL as kustomize-controller reaches it.
	URL string
	// Published, when set, hands what was stored to this process's artifact server.
	Published func(namespace, name string, s *server.Stored)
	// Now is the clock of lastUpdateTime; nil is time.Now.
	Now func() time.Time
}

// Outcome is what Publish did.
type Outcome struct {
	// Artifact is what the instance's status reports.
	Artifact templatesv1.PublishedArtifact
	// Changed says a new artifact was stored (false: the render, its storage and its
	// ExternalArtifact were as published already, and nothing was written).
	Changed bool
}

// Publish stores a and names it in the instance's ExternalArtifact, as the requester behind c;
// prev is what the instance's ConfigMap held (ReadStorage). revision names the render
// ("r3", "g5"); objects are what a holds. An artifact equal to the stored one, intact and
// named already, is written nowhere.
func (p *Publisher) Publish(ctx context.Context, c Client, ti *templatesv1.TemplateInstance, prev *Storage, a *artifact.Artifact,
	revision string, objects []templatesv1.TemplateInstanceObject) (*Outcome, error) {
	token := ""
	if prev != nil && artifact.ValidToken(prev.Token) {
		token = prev.Token
	}
	if token == "" {
		var err error
		if token, err = artifact.NewToken(); err != nil {
			return nil, err
		}
	}
	if prev != nil && prev.Intact && prev.Digest == a.Digest && prev.Revision != "" {
		revision = strings.SplitN(prev.Revision, "@", 2)[0]
	}
	published := templatesv1.PublishedArtifact{ExternalArtifact: ti.Name, Revision: artifact.Revision(revision, a.Digest),
		Digest: a.Digest, Size: int64(len(a.Archive)), Objects: int32(len(objects))}
	url := p.URL + artifact.URLPath(ti.Namespace, ti.Name, token, a.Digest)

	current, err := c.Get(ctx, ExternalArtifacts, ti.Namespace, ti.Name)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, noFlux(err)
	}
	if err == nil && prev != nil && prev.Intact && prev.Digest == a.Digest && prev.Token == token && names(current, published, url) {
		p.notify(ti, &server.Stored{Digest: a.Digest, Token: token, Archive: prev.Archive})
		return &Outcome{Artifact: published}, nil
	}

	if _, err := c.Apply(ctx, ConfigMaps, ti.Namespace, StorageName(ti.Name), storage(ti, a, published.Revision, token, objects), ""); err != nil {
		return nil, err
	}
	p.notify(ti, &server.Stored{Digest: a.Digest, Token: token, Archive: a.Archive})
	applied, err := c.Apply(ctx, ExternalArtifacts, ti.Namespace, ti.Name, externalArtifact(ti), "")
	if err != nil {
		return nil, noFlux(err)
	}
	status, err := p.status(applied, published, url)
	if err != nil {
		return nil, err
	}
	if _, err := c.Apply(ctx, ExternalArtifacts, ti.Namespace, ti.Name, status, "status"); err != nil {
		return nil, err
	}
	return &Outcome{Artifact: published, Changed: true}, nil
}

func (p *Publisher) notify(ti *templatesv1.TemplateInstance, s *server.Stored) {
	if p.Published != nil {
		p.Published(ti.Namespace, ti.Name, s)
	}
}

// names says the ExternalArtifact names the artifact at url, Ready.
func names(ea *unstructured.Unstructured, published templatesv1.PublishedArtifact, url string) bool {
	digest, _, _ := unstructured.NestedString(ea.Object, "status", "artifact", "digest")
	at, _, _ := unstructured.NestedString(ea.Object, "status", "artifact", "url")
	revision, _, _ := unstructured.NestedString(ea.Object, "status", "artifact", "revision")
	return digest == published.Digest && at == url && revision == published.Revision && readyTrue(ea)
}

func readyTrue(obj *unstructured.Unstructured) bool {
	return meta.IsStatusConditionTrue(conditionsOf(obj), fluxmeta.ReadyCondition)
}

// conditionsOf reads an object's status.conditions; none when they do not read as conditions.
func conditionsOf(obj *unstructured.Unstructured) []metav1.Condition {
	raw, ok, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	if !ok {
		return nil
	}
	var out []metav1.Condition
	for _, item := range raw {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		var c metav1.Condition
		if runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c) == nil {
			out = append(out, c)
		}
	}
	return out
}

func owner(ti *templatesv1.TemplateInstance) []metav1.OwnerReference {
	yes := true
	return []metav1.OwnerReference{{APIVersion: templatesv1.SchemeGroupVersion.String(), Kind: "TemplateInstance",
		Name: ti.Name, UID: ti.UID, Controller: &yes}}
}

// storage is the ConfigMap that holds a.
func storage(ti *templatesv1.TemplateInstance, a *artifact.Artifact, revision, token string, objects []templatesv1.TemplateInstanceObject) *unstructured.Unstructured {
	lines := make([]string, len(objects))
	for i, o := range objects {
		lines[i] = storageLine(o)
	}
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"data":       map[string]any{DigestKey: a.Digest, RevisionKey: revision, TokenKey: token, ObjectsKey: strings.Join(lines, "\n")},
		"binaryData": map[string]any{ArchiveKey: base64.StdEncoding.EncodeToString(a.Archive)},
	}}
	cm.SetName(StorageName(ti.Name))
	cm.SetNamespace(ti.Namespace)
	cm.SetLabels(map[string]string{ArtifactOfLabel: ti.Name, inventory.PartOfLabel: inventory.ApplySetID(ti.Namespace, ti.Name)})
	cm.SetOwnerReferences(owner(ti))
	return cm
}

// externalArtifact is the instance's ExternalArtifact without its status: its source is the
// instance.
func externalArtifact(ti *templatesv1.TemplateInstance) *unstructured.Unstructured {
	ea := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": ExternalArtifacts.GroupVersion().String(), "kind": ExternalArtifactKind,
		"spec": map[string]any{"sourceRef": map[string]any{"apiVersion": templatesv1.SchemeGroupVersion.String(),
			"kind": "TemplateInstance", "name": ti.Name, "namespace": ti.Namespace}},
	}}
	ea.SetName(ti.Name)
	ea.SetNamespace(ti.Namespace)
	ea.SetLabels(map[string]string{ArtifactOfLabel: ti.Name, inventory.PartOfLabel: inventory.ApplySetID(ti.Namespace, ti.Name)})
	ea.SetOwnerReferences(owner(ti))
	return ea
}

// status is the ExternalArtifact's status as source-controller writes its own: the artifact
// (Flux's Artifact type) and Ready, reason Succeeded, naming the revision.
func (p *Publisher) status(ea *unstructured.Unstructured, published templatesv1.PublishedArtifact, url string) (*unstructured.Unstructured, error) {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	at := metav1.NewTime(now().UTC().Truncate(time.Second))
	size := published.Size
	a := fluxmeta.Artifact{Digest: published.Digest, Path: artifact.Path(ea.GetNamespace(), ea.GetName(), published.Digest), URL: url,
		Revision: published.Revision, LastUpdateTime: at, Size: &size,
		Metadata: map[string]string{"templates.stencil.dev/objects": fmt.Sprint(published.Objects)}}
	conditions := conditionsOf(ea)
	meta.SetStatusCondition(&conditions, metav1.Condition{Type: fluxmeta.ReadyCondition, Status: metav1.ConditionTrue,
		Reason: fluxmeta.SucceededReason, Message: "stored artifact for revision '" + published.Revision + "'",
		ObservedGeneration: ea.GetGeneration(), LastTransitionTime: at})
	meta.RemoveStatusCondition(&conditions, fluxmeta.ReconcilingCondition)
	meta.RemoveStatusCondition(&conditions, fluxmeta.StalledCondition)
	artifactMap, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&a)
	if err != nil {
		return nil, err
	}
	return statusObject(ea, artifactMap, conditions)
}

// statusObject is the apply configuration of an ExternalArtifact's status.
func statusObject(ea *unstructured.Unstructured, artifactMap map[string]any, conditions []metav1.Condition) (*unstructured.Unstructured, error) {
	conditionMaps := make([]any, 0, len(conditions))
	for i := range conditions {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&conditions[i])
		if err != nil {
			return nil, err
		}
		conditionMaps = append(conditionMaps, m)
	}
	status := map[string]any{"conditions": conditionMaps}
	if artifactMap != nil {
		status["artifact"] = artifactMap
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": ExternalArtifacts.GroupVersion().String(), "kind": ExternalArtifactKind, "status": status}}
	obj.SetName(ea.GetName())
	obj.SetNamespace(ea.GetNamespace())
	return obj, nil
}

// MarkFailed sets the instance's ExternalArtifact Ready=False, reason
// StorageOperationFailed, keeping the artifact it names, as source-controller does when it
// cannot store one; an instance without an ExternalArtifact gets none.
func MarkFailed(ctx context.Context, c Client, ti *templatesv1.TemplateInstance, message string) error {
	ea, err := c.Get(ctx, ExternalArtifacts, ti.Namespace, ti.Name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return noFlux(err)
	}
	conditions := conditionsOf(ea)
	meta.SetStatusCondition(&conditions, metav1.Condition{Type: fluxmeta.ReadyCondition, Status: metav1.ConditionFalse,
		Reason: "StorageOperationFailed", Message: message, ObservedGeneration: ea.GetGeneration()})
	kept, _, _ := unstructured.NestedMap(ea.Object, "status", "artifact")
	status, err := statusObject(ea, kept, conditions)
	if err != nil {
		return err
	}
	_, err = c.Apply(ctx, ExternalArtifacts, ti.Namespace, ti.Name, status, "status")
	return err
}

// noFlux says what a missing ExternalArtifact kind means.
func noFlux(err error) error {
	if meta.IsNoMatchError(err) || (apierrors.IsNotFound(err) && strings.Contains(err.Error(), "the server could not find the requested resource")) {
		return &MissingKindError{err: err}
	}
	return err
}

// MissingKindError says the cluster serves no ExternalArtifacts: Flux's source CRDs are not
// installed.
type MissingKindError struct{ err error }

func (e *MissingKindError) Error() string {
	return "the cluster serves no ExternalArtifacts (source.toolkit.fluxcd.io/v1): install Flux's source CRDs, with " +
		"kustomize-controller started with --feature-gates=ExternalArtifact=true (docs/gitops.md)"
}

func (e *MissingKindError) Unwrap() error { return e.err }
