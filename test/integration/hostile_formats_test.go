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

package integration

import (
	"strings"
)

// formatCases abuse the shape of requests: bodies that are not objects, metadata out of
// bounds, content types, patches of every type that cannot apply, and list and watch options.
func formatCases(T, FX, CTS string) []hostileCase {
	c := func(name, method, path, contentType, body string, want int) hostileCase {
		return hostileCase{name: name, method: method, path: path, contentType: contentType, body: []byte(body), want: want}
	}
	withMeta := func(name, meta string) string {
		return strings.Replace(tpl(name, ""), `"name":"`+name+`"`, `"name":"`+name+`",`+meta, 1)
	}
	ops := strings.TrimSuffix(strings.Repeat(`{"op":"add","path":"/metadata/labels","value":{}},`, 20_000), ",")
	applied := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: " + fixtureTemplate + "}\n"
	apply := FX + "?fieldManager=hostile"
	return []hostileCase{
		// Bodies that are not a Template.
		c("empty body", "POST", T, ctJSON, ``, 400),
		// kube-apiserver decodes null as an empty object, which has no name.
		c("null body", "POST", T, ctJSON, `null`, 422),
		c("array body", "POST", T, ctJSON, `[]`, 400),
		c("string body", "POST", T, ctJSON, `"x"`, 400),
		c("byte order mark", "POST", T, ctJSON, "\xef\xbb\xbf"+tpl("bom", ""), 400),
		c("raw NUL in a string", "POST", T, ctJSON, tpl("nul", `,"message":"a`+"\x00"+`b"`), 400),
		c("a ConfigMap", "POST", T, ctJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`, 400),
		c("apiVersion v9", "POST", T, ctJSON, `{"apiVersion":"templates.stencil.dev/v9","kind":"Template","metadata":{"name":"v9"}}`, 400),
		c("duplicate members, strict", "POST", T+"?fieldValidation=Strict", ctJSON, tpl("dup", `,"message":"a","message":"b"`), 400),
		c("unknown field, strict", "POST", T+"?fieldValidation=Strict", ctJSON, tpl("unk", `,"bogus":1`), 400),
		c("content type XML", "POST", T, "application/xml", tpl("xml", ""), 415),
		c("content type CBOR", "POST", T, "application/cbor", tpl("cbor", ""), 415),
		c("JSON sent as protobuf", "POST", T, "application/vnd.kubernetes.protobuf", tpl("pb", ""), 415),
		// Metadata beyond its limits.
		c("namespace not the URL's", "POST", T, ctJSON, withMeta("ns", `"namespace":"other"`), 400),
		c("name of 254 characters", "POST", T, ctJSON, tpl(strings.Repeat("a", 254), ""), 422),
		c("name of invalid UTF-8", "POST", T, ctJSON, tpl("a\xff\xfe", ""), 422),
		c("namespace not a name", "POST", "/apis/templates.stencil.dev/v1alpha1/namespaces/Bad_NS/templates", ctJSON, tpl("x", ""), 422),
		c("annotations of 300 KB", "POST", T, ctJSON, withMeta("ann", `"annotations":{"a":"`+strings.Repeat("x", 300_000)+`"}`), 422),
		c("50,000 labels", "POST", T, ctJSON, withMeta("lab", `"labels":{`+keys(50_000)+`}`), 400),
		c("10,000 annotations on a CustomTransform", "POST", "/apis/templates.stencil.dev/v1alpha1/customtransforms", ctJSON,
			strings.Replace(customTransform("ann", pathsSpec(1, 10)), `"name":"ann"`, `"name":"ann","annotations":{`+keys(10_000)+`}`, 1), 400),
		c("a finalizer not a name", "POST", T, ctJSON, withMeta("fin", `"finalizers":["bad finalizer"]`), 422),
		c("an owner without uid", "POST", T, ctJSON, withMeta("own", `"ownerReferences":[{"apiVersion":"v1","kind":"X","name":"y","uid":""}]`), 422),
		c("invalid UTF-8 in an object's string", "POST", T, ctJSON, tpl("u1", objects(configMap(`{"a":"`+"\xff"+`"}`))), 422),
		c("invalid UTF-8 in an object's key", "POST", T, ctJSON, tpl("u2", objects(configMap(`{"`+"\xff"+`":"a"}`))), 422),
		c("a lone surrogate in an object", "POST", T, ctJSON, tpl("u3", objects(configMap(`{"a":"\ud800"}`))), 422),
		c("invalid UTF-8 in a message", "POST", T, ctJSON, tpl("u4", `,"message":"`+"\xff"+`"`), 201),
		c("5,000 levels of nesting stored", "POST", T, ctJSON, tpl("deep", objects(configMap(`{"x":`+strings.Repeat("[", 5000)+strings.Repeat("]", 5000)+`}`))), 201),
		// Updates that cannot apply.
		c("replace under another name", "PUT", FX, ctJSON, tpl("other", ""), 400),
		c("replace a missing template", "PUT", T+"/absent", ctJSON, tpl("absent", ""), 404),
		c("delete with precondition abc", "DELETE", FX, ctJSON, `{"preconditions":{"resourceVersion":"abc"}}`, 409),
		c("delete a missing template", "DELETE", T+"/absent", "", "", 404),
		c("merge patch null", "PATCH", FX, ctMergePatch, `null`, 400),
		c("merge patch array", "PATCH", FX, ctMergePatch, `[]`, 400),
		c("merge patch labels as a list", "PATCH", FX, ctMergePatch, `{"metadata":{"labels":["a"]}}`, 422),
		c("strategic merge array", "PATCH", FX, ctStrategic, `[1]`, 400),
		c("strategic merge objects as a map", "PATCH", FX, ctStrategic, `{"objects":{"a":1}}`, 422),
		c("strategic merge message as a map", "PATCH", FX, ctStrategic, `{"message":{"a":1}}`, 422),
		c("strategic merge $deleteFromPrimitiveList of objects", "PATCH", FX, ctStrategic, `{"$deleteFromPrimitiveList/objects":[1]}`, 400),
		c("strategic merge $retainKeys not a list", "PATCH", FX, ctStrategic, `{"$retainKeys":"x"}`, 400),
		c("JSON patch of 20,000 operations", "PATCH", FX, ctJSONPatch, "["+ops+"]", 413),
		c("JSON patch test failing", "PATCH", FX, ctJSONPatch, `[{"op":"test","path":"/message","value":"nope"}]`, 422),
		c("JSON patch bogus op", "PATCH", FX, ctJSONPatch, `[{"op":"bogus","path":"/message"}]`, 422),
		c("JSON patch not a list", "PATCH", FX, ctJSONPatch, `{"op":"add"}`, 400),
		c("JSON patch removing what is not there", "PATCH", FX, ctJSONPatch, `[{"op":"remove","path":"/nothing/here"}]`, 422),
		c("JSON patch making objects a string", "PATCH", FX, ctJSONPatch, `[{"op":"replace","path":"/objects","value":"x"}]`, 422),
		c("apply a ConfigMap", "PATCH", apply, ctApply, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fixture}\n", 400),
		c("apply without fieldManager", "PATCH", FX, ctApply, applied, 422),
		c("apply under another name", "PATCH", apply, ctApply, strings.Replace(applied, fixtureTemplate, "other", 1), 400),
		c("apply of broken YAML", "PATCH", apply, ctApply, ":\n - [", 400),
		c("apply with managedFields", "PATCH", apply, ctApply, strings.Replace(applied, "{name: fixture}", "{name: fixture, managedFields: [{manager: a}]}", 1), 400),
		c("apply an unknown field, strict", "PATCH", apply+"&fieldValidation=Strict", ctApply, applied+"bogus: 1\n", 400),
		c("apply message as a list", "PATCH", apply, ctApply, applied+"message: [1]\n", 400),
		c("apply objects as a number", "PATCH", apply, ctApply, applied+"objects: 5\n", 400),
		// List and watch options.
		c("label selector broken", "GET", T+"?labelSelector=a%3D%3D%3Db", "", "", 400),
		c("field selector unknown", "GET", T+"?fieldSelector=spec.x%3Dy", "", "", 400),
		c("continue token bogus", "GET", T+"?limit=1&continue=bogus", "", "", 400),
		c("resourceVersionMatch bogus", "GET", T+"?resourceVersion=1&resourceVersionMatch=Bogus", "", "", 422),
		c("timeoutSeconds not a number", "GET", T+"?watch=1&timeoutSeconds=abc", "", "", 400),
		c("limit -1", "GET", T+"?limit=-1", "", "", 200),
		c("list every template", "GET", T, "", "", 200),
		c("list CustomTransforms", "GET", CTS, "", "", 200),
		c("delete collection at resourceVersion abc", "DELETE", T+"?resourceVersion=abc", "", "", 400),
		c("CustomTransforms in a namespace", "GET", apiPath(hostileNS, "customtransforms"), "", "", 404),
	}
}
