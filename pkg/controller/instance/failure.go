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

package instance

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/redact"
)

// Failure is a problem of the instance, reported in its Failed condition (Reason, Message)
// and retried with backoff: a missing template, a 422 of processing, a refused object.
type Failure struct {
	Reason, Message string
}

func (f *Failure) Error() string { return f.Reason + ": " + f.Message }

// Fail returns the Failure of reason, its message formatted.
func Fail(reason, format string, args ...interface{}) *Failure {
	return &Failure{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// AsFailure returns the Failure err is or wraps, nil for any other error.
func AsFailure(err error) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	return nil
}

// Scrub returns err with the values of set kept out of its message: a Failure's message, an
// API status's message and causes (in a copy), any other error's text. Its kind stays, so
// that a caller still tells a failure of the instance from one of the cluster.
func Scrub(err error, set *redact.Set) error {
	if err == nil || set.Len() == 0 {
		return err
	}
	if f := AsFailure(err); f != nil {
		return &Failure{Reason: f.Reason, Message: set.ScrubString(f.Message)}
	}
	if status, ok := err.(apierrors.APIStatus); ok {
		st := status.Status()
		st.Message = set.ScrubString(st.Message)
		if d := st.Details; d != nil {
			details := *d
			details.Name = set.ScrubString(d.Name)
			details.Causes = make([]metav1.StatusCause, len(d.Causes))
			for i, c := range d.Causes {
				details.Causes[i] = metav1.StatusCause{Type: c.Type, Message: set.ScrubString(c.Message), Field: set.ScrubString(c.Field)}
			}
			st.Details = &details
		}
		return &apierrors.StatusError{ErrStatus: st}
	}
	return errors.New(set.ScrubString(err.Error()))
}

// StatusMessage is an API error's message as a user reads it (a 422's lists every cause).
func StatusMessage(err error) string {
	if status, ok := err.(apierrors.APIStatus); ok {
		return status.Status().Message
	}
	return err.Error()
}

// IsRefusal tells a refusal of an object by the cluster (the user's to fix) from a failure of
// the cluster (retried as it is).
func IsRefusal(err error) bool {
	return apierrors.IsForbidden(err) || apierrors.IsInvalid(err) || apierrors.IsConflict(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsNotFound(err) || apierrors.IsAlreadyExists(err) || apierrors.IsMethodNotSupported(err) || apierrors.IsUnauthorized(err)
}
