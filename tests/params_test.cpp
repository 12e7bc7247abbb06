#include <gtest/gtest.h>

#include "ucmoh/params.h"

namespace ucmoh {

TEST(Params, TypedLookupsNameTheKey) {
  ParamMap p{{"tile", int64_t{8}}, {"rate", 0.5}, {"order", std::string("nkm")}};
  EXPECT_EQ(*GetInt(p, "tile"), 8);
  EXPECT_DOUBLE_EQ(*GetReal(p, "tile"), 8.0);  // ints widen to reals
  EXPECT_EQ(*GetString(p, "order"), "nkm");
  auto missing = GetInt(p, "threads");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'threads'"), std::string::npos);
  auto mistyped = GetInt(p, "order");
  ASSERT_FALSE(mistyped.ok());
  EXPECT_NE(mistyped.status().message().find("must be an integer"), std::string::npos);
}

TEST(Params, CanonicalStringIsOrderedAndDistinguishesValues) {
  ParamMap a{{"b", int64_t{2}}, {"a", std::string("x")}};
  ParamMap b{{"a", std::string("x")}, {"b", int64_t{2}}};
  EXPECT_EQ(CanonicalString(a), "a=x,b=2");
  EXPECT_EQ(CanonicalString(a), CanonicalString(b));
  b["b"] = int64_t{3};
  EXPECT_NE(CanonicalString(a), CanonicalString(b));
}

}  // namespace ucmoh
