// Request targets and server URLs through uriparser (server/src/request_target.h):
// percent-decoding, refused path tricks, IPv6 literals.
#include <gtest/gtest.h>

#include "request_target.h"

namespace ucmoh::server {
namespace {

TEST(RequestTarget, DecodesPathAndQuery) {
  auto t = ParseRequestTarget("/api/aliases/nightly%20build?from=%31&limit=2&note=a+b%2Bc&flag");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->path, "/api/aliases/nightly build");
  EXPECT_EQ(t->QueryValue("from"), "1");
  EXPECT_EQ(t->QueryValue("limit"), "2");
  EXPECT_EQ(t->QueryValue("note"), "a b+c");
  EXPECT_EQ(t->QueryValue("flag"), "");
  EXPECT_EQ(t->QueryValue("absent"), "");
  t = ParseRequestTarget("/api/jobs/");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->path, "/api/jobs/");
  t = ParseRequestTarget("/");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->path, "/");
}

TEST(RequestTarget, RefusesPathsThatCouldLeaveTheirRoute) {
  for (const char* bad : {"/artifacts/1/../../etc/passwd", "/artifacts/1/%2e%2e/x", "/blobs/a%2Fb", "/a//b", "/a/./b",
                          "/a/%00b", "/a\\b", "api/versions", "", "http://x/api", "/a/%5Cb", "/a b"}) {
    auto t = ParseRequestTarget(bad);
    EXPECT_FALSE(t.ok()) << "'" << bad << "' was accepted as '" << (t.ok() ? t->path : "") << "'";
    if (!t.ok()) EXPECT_EQ(t.status().message().rfind("malformed", 0), 0u) << t.status().message();
  }
}

TEST(HttpUrl, ReadsHostsPortsAndPaths) {
  auto u = ParseHttpUrl("http://[::1]:8080/api/versions?limit=1");
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, "8080");
  EXPECT_EQ(u->path, "/api/versions?limit=1");
  EXPECT_FALSE(u->tls);
  u = ParseHttpUrl("https://registry.example.org");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->host, "registry.example.org");
  EXPECT_EQ(u->port, "443");
  EXPECT_EQ(u->path, "/");
  EXPECT_TRUE(u->tls);
  u = ParseHttpUrl("http://127.0.0.1:9/x#frag");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->path, "/x");
  for (const char* bad : {"ftp://h/x", "http://:80/", "http://h:port/", "not a url", "http//h/"})
    EXPECT_FALSE(ParseHttpUrl(bad).ok()) << bad;
}

}  // namespace
}  // namespace ucmoh::server
