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

// Package browser drives a real headless Chromium for the tests of `stencil ui`: one tab per
// test, JavaScript errors fail the test, and screenshots land where the test says.
package browser

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// EnsureChromium installs Debian's chromium with the project's script when it is missing, so
// that the browser tests never skip; repoRoot is the checkout's root.
func EnsureChromium(repoRoot string) error {
	if _, err := exec.LookPath("chromium"); err == nil {
		return nil
	}
	install := exec.Command(filepath.Join(repoRoot, "hack", "install-chromium.sh"))
	install.Stdout, install.Stderr = os.Stderr, os.Stderr
	if err := install.Run(); err != nil {
		return fmt.Errorf("the browser tests need Debian's chromium, and installing it failed: %v", err)
	}
	return nil
}

// quietErrorf logs chromedp's errors but for the DevTools events it has no handler for
// (Chromium is newer than its protocol tables), which say nothing about the page.
func quietErrorf(format string, args ...any) {
	if msg := fmt.Sprintf(format, args...); !strings.Contains(msg, "unhandled node event") {
		log.Print(msg)
	}
}

// Tab is one headless Chromium tab; JavaScript exceptions and console errors fail the test.
type Tab struct {
	ctx      context.Context
	t        *testing.T
	dir      string
	mu       sync.Mutex
	errors   []string
	requests []*Request
	byID     map[network.RequestID]*Request
}

// Request is one request the page sent, and the HTTP status it was answered with (0 while it
// is not answered).
type Request struct {
	Method string
	URL    string
	Status int64
}

// Requests are the requests the page sent so far, in order, as the browser saw them.
func (b *Tab) Requests() []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Request, len(b.requests))
	for i, r := range b.requests {
		out[i] = *r
	}
	return out
}

// New opens a tab of a browser of its own, writing screenshots into dir; it closes when the
// test ends.
func New(t *testing.T, dir string) *Tab {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.WindowSize(1440, 1000))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithErrorf(quietErrorf))
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	b := &Tab{ctx: ctx, t: t, dir: dir, byID: map[network.RequestID]*Request{}}
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			r := &Request{Method: ev.Request.Method, URL: ev.Request.URL}
			b.requests = append(b.requests, r)
			b.byID[ev.RequestID] = r
		case *network.EventResponseReceived:
			if r := b.byID[ev.RequestID]; r != nil {
				r.Status = ev.Response.Status
			}
		case *runtime.EventExceptionThrown:
			b.errors = append(b.errors, "exception: "+ev.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.errors = append(b.errors, "console.error: "+strings.Join(args, " "))
			}
		}
	})
	t.Cleanup(func() {
		b.mu.Lock()
		errs := b.errors
		b.mu.Unlock()
		for _, e := range errs {
			t.Errorf("the page reported %s", e)
		}
		cancelTime()
		cancelTab()
		cancelAlloc()
	})
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return b
}

// Run runs actions, failing the test with what was being done (and a screenshot of it).
func (b *Tab) Run(what string, actions ...chromedp.Action) {
	b.t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		b.Screenshot("failed-" + strings.ReplaceAll(what, " ", "-"))
		b.t.Fatalf("%s: %v", what, err)
	}
}

// Screenshot writes the whole page as name.png.
func (b *Tab) Screenshot(name string) {
	b.t.Helper()
	var png []byte
	if err := chromedp.Run(b.ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(b.dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
	}
	b.t.Logf("screenshot %s", path)
}

// WaitFor polls a JavaScript condition until it is true, for up to 20 seconds.
func WaitFor(condition string) chromedp.Action { return WaitWithin(20*time.Second, condition) }

// WaitWithin polls a JavaScript condition until it is true, for up to limit: for what a
// controller does on its own schedule.
func WaitWithin(limit time.Duration, condition string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		deadline := time.Now().Add(limit)
		for {
			var ok bool
			if err := chromedp.Evaluate(condition, &ok).Do(ctx); err != nil {
				return err
			}
			if ok {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("still false after %s: %s", limit, condition)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}

// Clear empties a text field; typing into it afterwards sends the input events a user's would.
func Clear(selector string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`document.querySelector(%q).value = ""`, selector), nil)
}

// Text reads the text of the first element matching a selector, now.
func (b *Tab) Text(selector string) string {
	b.t.Helper()
	var out string
	b.Run("reading "+selector, chromedp.Evaluate(fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, selector), &out))
	return out
}

// Eval evaluates a JavaScript expression into out, awaiting a promise.
func (b *Tab) Eval(expression string, out any) {
	b.t.Helper()
	b.Run("evaluating "+expression, chromedp.Evaluate(expression, out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams {
		return p.WithAwaitPromise(true)
	}))
}
