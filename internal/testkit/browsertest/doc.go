// Package browsertest drives headless Chromium with chromedp for the
// console's end-to-end tests: it finds the browser (the Debian package
// chromium; $CHROMIUM names another binary), starts one per test, opens
// tabs that record JavaScript exceptions and Content-Security-Policy
// violations, and takes screenshots that it checks are PNGs with
// something drawn on them.
//
// Without a browser, New skips the test with a message saying how to
// install one; on CI (CI=true) it fails instead, since .ci/run installs
// it.
package browsertest
