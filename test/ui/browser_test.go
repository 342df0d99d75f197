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

package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// screenshotDir is where each step's screenshot is written, from the repository's root.
var screenshotDir = filepath.Join("..", "..", "_output", "ui-screenshots")

// browser is one headless Chromium tab; JavaScript exceptions and console errors fail the test.
type browser struct {
	ctx    context.Context
	t      *testing.T
	mu     sync.Mutex
	errors []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.WindowSize(1440, 1000))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	b := &browser{ctx: ctx, t: t}
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
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
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	return b
}

// run runs actions, failing the test with what was being done.
func (b *browser) run(what string, actions ...chromedp.Action) {
	b.t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		b.screenshot("failed-" + strings.ReplaceAll(what, " ", "-"))
		b.t.Fatalf("%s: %v", what, err)
	}
}

// screenshot writes the whole page as a PNG.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	var png []byte
	if err := chromedp.Run(b.ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(screenshotDir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
	}
	b.t.Logf("screenshot %s", path)
}

// waitFor polls a JavaScript condition until it is true.
func waitFor(condition string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		deadline := time.Now().Add(20 * time.Second)
		for {
			var ok bool
			if err := chromedp.Evaluate(condition, &ok).Do(ctx); err != nil {
				return err
			}
			if ok {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("still false after 20s: %s", condition)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}

// text reads the text of the first element matching a selector, now.
func (b *browser) text(selector string) string {
	b.t.Helper()
	var out string
	b.run("reading "+selector, chromedp.Evaluate(fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, selector), &out))
	return out
}

// eval evaluates a JavaScript expression into out.
func (b *browser) eval(expression string, out any) {
	b.t.Helper()
	b.run("evaluating "+expression, chromedp.Evaluate(expression, out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams {
		return p.WithAwaitPromise(true)
	}))
}
