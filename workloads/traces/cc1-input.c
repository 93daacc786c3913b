#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct s0 { int a0; double b0; char c0[31]; struct s0 *next; };
int f0(struct s0 *p, int x) {
  x = x * 71 + (x >> 2) ^ 378;
  if (x % 17 == 0) { p->a0 += x; snprintf(p->c0, sizeof p->c0, "%d", x); }
  x = x * 82 + (x >> 5) ^ 67;
  if (x % 2 == 0) { p->a0 += x; snprintf(p->c0, sizeof p->c0, "%d", x); }
  x = x * 62 + (x >> 3) ^ 564;
  if (x % 9 == 0) { p->a0 += x; snprintf(p->c0, sizeof p->c0, "%d", x); }
  x = x * 26 + (x >> 6) ^ 481;
  if (x % 17 == 0) { p->a0 += x; snprintf(p->c0, sizeof p->c0, "%d", x); }
  x = x * 52 + (x >> 6) ^ 881;
  if (x % 6 == 0) { p->a0 += x; snprintf(p->c0, sizeof p->c0, "%d", x); }
  x = x * 31 + (x >> 6) ^ 155;
  if (x % 14 == 0) { p->a0 += x; snprintf(p->c0, sizeof p->c0, "%d", x); }
  x = x * 96 + (x >> 1) ^ 687;
  if (x % 4 == 0) { p->a0 += x; snprintf(p->c0, sizeof p->c0, "%d", x); }
  x = x * 22 + (x >> 7) ^ 980;
  if (x % 3 == 0) { p->a0 += x; snprintf(p->c0, sizeof p->c0, "%d", x); }
  x = x * 40 + (x >> 7) ^ 31;
  if (x % 10 == 0) { p->a0 += x; snprintf(p->c0, sizeof p->c0, "%d", x); }
  x = x * 62 + (x >> 5) ^ 736;
  if (x % 14 == 0) { p->a0 += x; snprintf(p->c0, sizeof p->c0, "%d", x); }
  x = x * 93 + (x >> 7) ^ 943;
  if (x % 15 == 0) { p->a0 += x; snprintf(p->c0, sizeof p->c0, "%d", x); }
  x = x * 52 + (x >> 6) ^ 820;
  if (x % 16 == 0) { p->a0 += x; snprintf(p->c0, sizeof p->c0, "%d", x); }
  return x + (p->next ? f0(p->next, x - 1) : 0);
}
struct s1 { int a1; double b1; char c1[18]; struct s1 *next; };
int f1(struct s1 *p, int x) {
  x = x * 14 + (x >> 1) ^ 139;
  if (x % 17 == 0) { p->a1 += x; snprintf(p->c1, sizeof p->c1, "%d", x); }
  x = x * 29 + (x >> 3) ^ 988;
  if (x % 15 == 0) { p->a1 += x; snprintf(p->c1, sizeof p->c1, "%d", x); }
  x = x * 82 + (x >> 7) ^ 308;
  if (x % 15 == 0) { p->a1 += x; snprintf(p->c1, sizeof p->c1, "%d", x); }
  x = x * 66 + (x >> 7) ^ 395;
  if (x % 13 == 0) { p->a1 += x; snprintf(p->c1, sizeof p->c1, "%d", x); }
  x = x * 70 + (x >> 5) ^ 417;
  if (x % 9 == 0) { p->a1 += x; snprintf(p->c1, sizeof p->c1, "%d", x); }
  x = x * 45 + (x >> 6) ^ 937;
  if (x % 2 == 0) { p->a1 += x; snprintf(p->c1, sizeof p->c1, "%d", x); }
  x = x * 37 + (x >> 5) ^ 687;
  if (x % 7 == 0) { p->a1 += x; snprintf(p->c1, sizeof p->c1, "%d", x); }
  x = x * 91 + (x >> 7) ^ 334;
  if (x % 5 == 0) { p->a1 += x; snprintf(p->c1, sizeof p->c1, "%d", x); }
  return x + (p->next ? f1(p->next, x - 1) : 0);
}
struct s2 { int a2; double b2; char c2[28]; struct s2 *next; };
int f2(struct s2 *p, int x) {
  x = x * 75 + (x >> 3) ^ 291;
  if (x % 5 == 0) { p->a2 += x; snprintf(p->c2, sizeof p->c2, "%d", x); }
  x = x * 10 + (x >> 4) ^ 874;
  if (x % 17 == 0) { p->a2 += x; snprintf(p->c2, sizeof p->c2, "%d", x); }
  x = x * 13 + (x >> 3) ^ 819;
  if (x % 4 == 0) { p->a2 += x; snprintf(p->c2, sizeof p->c2, "%d", x); }
  x = x * 54 + (x >> 2) ^ 20;
  if (x % 11 == 0) { p->a2 += x; snprintf(p->c2, sizeof p->c2, "%d", x); }
  x = x * 56 + (x >> 7) ^ 425;
  if (x % 5 == 0) { p->a2 += x; snprintf(p->c2, sizeof p->c2, "%d", x); }
  x = x * 7 + (x >> 5) ^ 629;
  if (x % 3 == 0) { p->a2 += x; snprintf(p->c2, sizeof p->c2, "%d", x); }
  x = x * 50 + (x >> 6) ^ 600;
  if (x % 12 == 0) { p->a2 += x; snprintf(p->c2, sizeof p->c2, "%d", x); }
  x = x * 72 + (x >> 3) ^ 517;
  if (x % 9 == 0) { p->a2 += x; snprintf(p->c2, sizeof p->c2, "%d", x); }
  x = x * 6 + (x >> 3) ^ 7;
  if (x % 4 == 0) { p->a2 += x; snprintf(p->c2, sizeof p->c2, "%d", x); }
  x = x * 15 + (x >> 5) ^ 548;
  if (x % 3 == 0) { p->a2 += x; snprintf(p->c2, sizeof p->c2, "%d", x); }
  x = x * 27 + (x >> 4) ^ 298;
  if (x % 10 == 0) { p->a2 += x; snprintf(p->c2, sizeof p->c2, "%d", x); }
  x = x * 21 + (x >> 6) ^ 43;
  if (x % 12 == 0) { p->a2 += x; snprintf(p->c2, sizeof p->c2, "%d", x); }
  x = x * 42 + (x >> 3) ^ 981;
  if (x % 6 == 0) { p->a2 += x; snprintf(p->c2, sizeof p->c2, "%d", x); }
  return x + (p->next ? f2(p->next, x - 1) : 0);
}
struct s3 { int a3; double b3; char c3[49]; struct s3 *next; };
int f3(struct s3 *p, int x) {
  x = x * 60 + (x >> 7) ^ 532;
  if (x % 14 == 0) { p->a3 += x; snprintf(p->c3, sizeof p->c3, "%d", x); }
  x = x * 84 + (x >> 7) ^ 609;
  if (x % 5 == 0) { p->a3 += x; snprintf(p->c3, sizeof p->c3, "%d", x); }
  x = x * 81 + (x >> 7) ^ 519;
  if (x % 10 == 0) { p->a3 += x; snprintf(p->c3, sizeof p->c3, "%d", x); }
  x = x * 57 + (x >> 6) ^ 737;
  if (x % 9 == 0) { p->a3 += x; snprintf(p->c3, sizeof p->c3, "%d", x); }
  x = x * 40 + (x >> 4) ^ 264;
  if (x % 11 == 0) { p->a3 += x; snprintf(p->c3, sizeof p->c3, "%d", x); }
  x = x * 72 + (x >> 3) ^ 11;
  if (x % 15 == 0) { p->a3 += x; snprintf(p->c3, sizeof p->c3, "%d", x); }
  x = x * 76 + (x >> 3) ^ 20;
  if (x % 14 == 0) { p->a3 += x; snprintf(p->c3, sizeof p->c3, "%d", x); }
  x = x * 80 + (x >> 5) ^ 647;
  if (x % 6 == 0) { p->a3 += x; snprintf(p->c3, sizeof p->c3, "%d", x); }
  x = x * 9 + (x >> 6) ^ 642;
  if (x % 12 == 0) { p->a3 += x; snprintf(p->c3, sizeof p->c3, "%d", x); }
  return x + (p->next ? f3(p->next, x - 1) : 0);
}
struct s4 { int a4; double b4; char c4[60]; struct s4 *next; };
int f4(struct s4 *p, int x) {
  x = x * 88 + (x >> 3) ^ 623;
  if (x % 10 == 0) { p->a4 += x; snprintf(p->c4, sizeof p->c4, "%d", x); }
  x = x * 96 + (x >> 4) ^ 22;
  if (x % 3 == 0) { p->a4 += x; snprintf(p->c4, sizeof p->c4, "%d", x); }
  x = x * 88 + (x >> 1) ^ 986;
  if (x % 13 == 0) { p->a4 += x; snprintf(p->c4, sizeof p->c4, "%d", x); }
  x = x * 34 + (x >> 6) ^ 467;
  if (x % 11 == 0) { p->a4 += x; snprintf(p->c4, sizeof p->c4, "%d", x); }
  x = x * 77 + (x >> 5) ^ 327;
  if (x % 7 == 0) { p->a4 += x; snprintf(p->c4, sizeof p->c4, "%d", x); }
  x = x * 48 + (x >> 2) ^ 320;
  if (x % 13 == 0) { p->a4 += x; snprintf(p->c4, sizeof p->c4, "%d", x); }
  x = x * 78 + (x >> 3) ^ 307;
  if (x % 14 == 0) { p->a4 += x; snprintf(p->c4, sizeof p->c4, "%d", x); }
  x = x * 15 + (x >> 7) ^ 832;
  if (x % 2 == 0) { p->a4 += x; snprintf(p->c4, sizeof p->c4, "%d", x); }
  return x + (p->next ? f4(p->next, x - 1) : 0);
}
struct s5 { int a5; double b5; char c5[17]; struct s5 *next; };
int f5(struct s5 *p, int x) {
  x = x * 66 + (x >> 2) ^ 669;
  if (x % 10 == 0) { p->a5 += x; snprintf(p->c5, sizeof p->c5, "%d", x); }
  x = x * 32 + (x >> 3) ^ 191;
  if (x % 15 == 0) { p->a5 += x; snprintf(p->c5, sizeof p->c5, "%d", x); }
  x = x * 85 + (x >> 6) ^ 99;
  if (x % 5 == 0) { p->a5 += x; snprintf(p->c5, sizeof p->c5, "%d", x); }
  x = x * 78 + (x >> 3) ^ 971;
  if (x % 12 == 0) { p->a5 += x; snprintf(p->c5, sizeof p->c5, "%d", x); }
  x = x * 88 + (x >> 7) ^ 229;
  if (x % 16 == 0) { p->a5 += x; snprintf(p->c5, sizeof p->c5, "%d", x); }
  x = x * 23 + (x >> 1) ^ 344;
  if (x % 8 == 0) { p->a5 += x; snprintf(p->c5, sizeof p->c5, "%d", x); }
  x = x * 74 + (x >> 4) ^ 277;
  if (x % 9 == 0) { p->a5 += x; snprintf(p->c5, sizeof p->c5, "%d", x); }
  return x + (p->next ? f5(p->next, x - 1) : 0);
}
struct s6 { int a6; double b6; char c6[16]; struct s6 *next; };
int f6(struct s6 *p, int x) {
  x = x * 69 + (x >> 2) ^ 322;
  if (x % 7 == 0) { p->a6 += x; snprintf(p->c6, sizeof p->c6, "%d", x); }
  x = x * 37 + (x >> 3) ^ 826;
  if (x % 4 == 0) { p->a6 += x; snprintf(p->c6, sizeof p->c6, "%d", x); }
  x = x * 81 + (x >> 3) ^ 603;
  if (x % 6 == 0) { p->a6 += x; snprintf(p->c6, sizeof p->c6, "%d", x); }
  return x + (p->next ? f6(p->next, x - 1) : 0);
}
struct s7 { int a7; double b7; char c7[54]; struct s7 *next; };
int f7(struct s7 *p, int x) {
  x = x * 68 + (x >> 7) ^ 870;
  if (x % 10 == 0) { p->a7 += x; snprintf(p->c7, sizeof p->c7, "%d", x); }
  x = x * 61 + (x >> 3) ^ 649;
  if (x % 15 == 0) { p->a7 += x; snprintf(p->c7, sizeof p->c7, "%d", x); }
  x = x * 39 + (x >> 4) ^ 581;
  if (x % 15 == 0) { p->a7 += x; snprintf(p->c7, sizeof p->c7, "%d", x); }
  x = x * 6 + (x >> 4) ^ 159;
  if (x % 8 == 0) { p->a7 += x; snprintf(p->c7, sizeof p->c7, "%d", x); }
  x = x * 2 + (x >> 4) ^ 965;
  if (x % 15 == 0) { p->a7 += x; snprintf(p->c7, sizeof p->c7, "%d", x); }
  x = x * 73 + (x >> 6) ^ 227;
  if (x % 3 == 0) { p->a7 += x; snprintf(p->c7, sizeof p->c7, "%d", x); }
  x = x * 97 + (x >> 4) ^ 856;
  if (x % 11 == 0) { p->a7 += x; snprintf(p->c7, sizeof p->c7, "%d", x); }
  return x + (p->next ? f7(p->next, x - 1) : 0);
}
struct s8 { int a8; double b8; char c8[44]; struct s8 *next; };
int f8(struct s8 *p, int x) {
  x = x * 10 + (x >> 7) ^ 602;
  if (x % 11 == 0) { p->a8 += x; snprintf(p->c8, sizeof p->c8, "%d", x); }
  x = x * 17 + (x >> 7) ^ 250;
  if (x % 3 == 0) { p->a8 += x; snprintf(p->c8, sizeof p->c8, "%d", x); }
  x = x * 6 + (x >> 7) ^ 710;
  if (x % 8 == 0) { p->a8 += x; snprintf(p->c8, sizeof p->c8, "%d", x); }
  x = x * 57 + (x >> 5) ^ 50;
  if (x % 2 == 0) { p->a8 += x; snprintf(p->c8, sizeof p->c8, "%d", x); }
  x = x * 63 + (x >> 6) ^ 123;
  if (x % 7 == 0) { p->a8 += x; snprintf(p->c8, sizeof p->c8, "%d", x); }
  x = x * 66 + (x >> 3) ^ 244;
  if (x % 2 == 0) { p->a8 += x; snprintf(p->c8, sizeof p->c8, "%d", x); }
  return x + (p->next ? f8(p->next, x - 1) : 0);
}
struct s9 { int a9; double b9; char c9[53]; struct s9 *next; };
int f9(struct s9 *p, int x) {
  x = x * 80 + (x >> 1) ^ 349;
  if (x % 6 == 0) { p->a9 += x; snprintf(p->c9, sizeof p->c9, "%d", x); }
  x = x * 34 + (x >> 7) ^ 553;
  if (x % 17 == 0) { p->a9 += x; snprintf(p->c9, sizeof p->c9, "%d", x); }
  x = x * 9 + (x >> 3) ^ 226;
  if (x % 8 == 0) { p->a9 += x; snprintf(p->c9, sizeof p->c9, "%d", x); }
  return x + (p->next ? f9(p->next, x - 1) : 0);
}
struct s10 { int a10; double b10; char c10[16]; struct s10 *next; };
int f10(struct s10 *p, int x) {
  x = x * 17 + (x >> 2) ^ 245;
  if (x % 10 == 0) { p->a10 += x; snprintf(p->c10, sizeof p->c10, "%d", x); }
  x = x * 18 + (x >> 7) ^ 942;
  if (x % 2 == 0) { p->a10 += x; snprintf(p->c10, sizeof p->c10, "%d", x); }
  x = x * 64 + (x >> 6) ^ 584;
  if (x % 14 == 0) { p->a10 += x; snprintf(p->c10, sizeof p->c10, "%d", x); }
  x = x * 8 + (x >> 7) ^ 277;
  if (x % 9 == 0) { p->a10 += x; snprintf(p->c10, sizeof p->c10, "%d", x); }
  x = x * 36 + (x >> 5) ^ 539;
  if (x % 15 == 0) { p->a10 += x; snprintf(p->c10, sizeof p->c10, "%d", x); }
  x = x * 8 + (x >> 4) ^ 330;
  if (x % 2 == 0) { p->a10 += x; snprintf(p->c10, sizeof p->c10, "%d", x); }
  x = x * 9 + (x >> 7) ^ 129;
  if (x % 3 == 0) { p->a10 += x; snprintf(p->c10, sizeof p->c10, "%d", x); }
  x = x * 17 + (x >> 1) ^ 70;
  if (x % 17 == 0) { p->a10 += x; snprintf(p->c10, sizeof p->c10, "%d", x); }
  x = x * 6 + (x >> 7) ^ 729;
  if (x % 4 == 0) { p->a10 += x; snprintf(p->c10, sizeof p->c10, "%d", x); }
  x = x * 67 + (x >> 5) ^ 501;
  if (x % 12 == 0) { p->a10 += x; snprintf(p->c10, sizeof p->c10, "%d", x); }
  x = x * 22 + (x >> 3) ^ 73;
  if (x % 13 == 0) { p->a10 += x; snprintf(p->c10, sizeof p->c10, "%d", x); }
  return x + (p->next ? f10(p->next, x - 1) : 0);
}
struct s11 { int a11; double b11; char c11[50]; struct s11 *next; };
int f11(struct s11 *p, int x) {
  x = x * 51 + (x >> 5) ^ 311;
  if (x % 13 == 0) { p->a11 += x; snprintf(p->c11, sizeof p->c11, "%d", x); }
  x = x * 35 + (x >> 2) ^ 336;
  if (x % 15 == 0) { p->a11 += x; snprintf(p->c11, sizeof p->c11, "%d", x); }
  x = x * 17 + (x >> 2) ^ 568;
  if (x % 2 == 0) { p->a11 += x; snprintf(p->c11, sizeof p->c11, "%d", x); }
  x = x * 93 + (x >> 6) ^ 389;
  if (x % 4 == 0) { p->a11 += x; snprintf(p->c11, sizeof p->c11, "%d", x); }
  x = x * 74 + (x >> 2) ^ 43;
  if (x % 13 == 0) { p->a11 += x; snprintf(p->c11, sizeof p->c11, "%d", x); }
  x = x * 60 + (x >> 5) ^ 665;
  if (x % 14 == 0) { p->a11 += x; snprintf(p->c11, sizeof p->c11, "%d", x); }
  x = x * 83 + (x >> 7) ^ 44;
  if (x % 15 == 0) { p->a11 += x; snprintf(p->c11, sizeof p->c11, "%d", x); }
  x = x * 8 + (x >> 3) ^ 642;
  if (x % 17 == 0) { p->a11 += x; snprintf(p->c11, sizeof p->c11, "%d", x); }
  x = x * 99 + (x >> 6) ^ 322;
  if (x % 15 == 0) { p->a11 += x; snprintf(p->c11, sizeof p->c11, "%d", x); }
  x = x * 90 + (x >> 4) ^ 471;
  if (x % 2 == 0) { p->a11 += x; snprintf(p->c11, sizeof p->c11, "%d", x); }
  x = x * 33 + (x >> 2) ^ 548;
  if (x % 10 == 0) { p->a11 += x; snprintf(p->c11, sizeof p->c11, "%d", x); }
  x = x * 90 + (x >> 5) ^ 73;
  if (x % 15 == 0) { p->a11 += x; snprintf(p->c11, sizeof p->c11, "%d", x); }
  x = x * 30 + (x >> 4) ^ 133;
  if (x % 2 == 0) { p->a11 += x; snprintf(p->c11, sizeof p->c11, "%d", x); }
  return x + (p->next ? f11(p->next, x - 1) : 0);
}
struct s12 { int a12; double b12; char c12[42]; struct s12 *next; };
int f12(struct s12 *p, int x) {
  x = x * 73 + (x >> 7) ^ 891;
  if (x % 10 == 0) { p->a12 += x; snprintf(p->c12, sizeof p->c12, "%d", x); }
  x = x * 17 + (x >> 4) ^ 707;
  if (x % 5 == 0) { p->a12 += x; snprintf(p->c12, sizeof p->c12, "%d", x); }
  x = x * 95 + (x >> 6) ^ 870;
  if (x % 14 == 0) { p->a12 += x; snprintf(p->c12, sizeof p->c12, "%d", x); }
  x = x * 87 + (x >> 1) ^ 751;
  if (x % 12 == 0) { p->a12 += x; snprintf(p->c12, sizeof p->c12, "%d", x); }
  x = x * 74 + (x >> 5) ^ 105;
  if (x % 2 == 0) { p->a12 += x; snprintf(p->c12, sizeof p->c12, "%d", x); }
  x = x * 62 + (x >> 2) ^ 241;
  if (x % 14 == 0) { p->a12 += x; snprintf(p->c12, sizeof p->c12, "%d", x); }
  x = x * 7 + (x >> 5) ^ 94;
  if (x % 5 == 0) { p->a12 += x; snprintf(p->c12, sizeof p->c12, "%d", x); }
  x = x * 86 + (x >> 4) ^ 183;
  if (x % 2 == 0) { p->a12 += x; snprintf(p->c12, sizeof p->c12, "%d", x); }
  return x + (p->next ? f12(p->next, x - 1) : 0);
}
struct s13 { int a13; double b13; char c13[44]; struct s13 *next; };
int f13(struct s13 *p, int x) {
  x = x * 5 + (x >> 7) ^ 117;
  if (x % 17 == 0) { p->a13 += x; snprintf(p->c13, sizeof p->c13, "%d", x); }
  x = x * 91 + (x >> 3) ^ 592;
  if (x % 11 == 0) { p->a13 += x; snprintf(p->c13, sizeof p->c13, "%d", x); }
  x = x * 13 + (x >> 1) ^ 785;
  if (x % 9 == 0) { p->a13 += x; snprintf(p->c13, sizeof p->c13, "%d", x); }
  x = x * 15 + (x >> 5) ^ 766;
  if (x % 5 == 0) { p->a13 += x; snprintf(p->c13, sizeof p->c13, "%d", x); }
  return x + (p->next ? f13(p->next, x - 1) : 0);
}
struct s14 { int a14; double b14; char c14[8]; struct s14 *next; };
int f14(struct s14 *p, int x) {
  x = x * 43 + (x >> 7) ^ 577;
  if (x % 7 == 0) { p->a14 += x; snprintf(p->c14, sizeof p->c14, "%d", x); }
  x = x * 11 + (x >> 2) ^ 184;
  if (x % 9 == 0) { p->a14 += x; snprintf(p->c14, sizeof p->c14, "%d", x); }
  x = x * 60 + (x >> 5) ^ 716;
  if (x % 14 == 0) { p->a14 += x; snprintf(p->c14, sizeof p->c14, "%d", x); }
  x = x * 34 + (x >> 3) ^ 613;
  if (x % 14 == 0) { p->a14 += x; snprintf(p->c14, sizeof p->c14, "%d", x); }
  x = x * 46 + (x >> 5) ^ 428;
  if (x % 4 == 0) { p->a14 += x; snprintf(p->c14, sizeof p->c14, "%d", x); }
  x = x * 50 + (x >> 5) ^ 240;
  if (x % 15 == 0) { p->a14 += x; snprintf(p->c14, sizeof p->c14, "%d", x); }
  x = x * 97 + (x >> 2) ^ 425;
  if (x % 17 == 0) { p->a14 += x; snprintf(p->c14, sizeof p->c14, "%d", x); }
  x = x * 21 + (x >> 6) ^ 410;
  if (x % 6 == 0) { p->a14 += x; snprintf(p->c14, sizeof p->c14, "%d", x); }
  x = x * 22 + (x >> 1) ^ 509;
  if (x % 17 == 0) { p->a14 += x; snprintf(p->c14, sizeof p->c14, "%d", x); }
  x = x * 91 + (x >> 5) ^ 973;
  if (x % 16 == 0) { p->a14 += x; snprintf(p->c14, sizeof p->c14, "%d", x); }
  x = x * 77 + (x >> 6) ^ 878;
  if (x % 7 == 0) { p->a14 += x; snprintf(p->c14, sizeof p->c14, "%d", x); }
  return x + (p->next ? f14(p->next, x - 1) : 0);
}
struct s15 { int a15; double b15; char c15[18]; struct s15 *next; };
int f15(struct s15 *p, int x) {
  x = x * 98 + (x >> 2) ^ 150;
  if (x % 12 == 0) { p->a15 += x; snprintf(p->c15, sizeof p->c15, "%d", x); }
  x = x * 31 + (x >> 7) ^ 707;
  if (x % 11 == 0) { p->a15 += x; snprintf(p->c15, sizeof p->c15, "%d", x); }
  x = x * 87 + (x >> 6) ^ 875;
  if (x % 15 == 0) { p->a15 += x; snprintf(p->c15, sizeof p->c15, "%d", x); }
  x = x * 78 + (x >> 7) ^ 598;
  if (x % 10 == 0) { p->a15 += x; snprintf(p->c15, sizeof p->c15, "%d", x); }
  x = x * 29 + (x >> 3) ^ 23;
  if (x % 10 == 0) { p->a15 += x; snprintf(p->c15, sizeof p->c15, "%d", x); }
  x = x * 63 + (x >> 7) ^ 391;
  if (x % 8 == 0) { p->a15 += x; snprintf(p->c15, sizeof p->c15, "%d", x); }
  x = x * 24 + (x >> 5) ^ 369;
  if (x % 9 == 0) { p->a15 += x; snprintf(p->c15, sizeof p->c15, "%d", x); }
  return x + (p->next ? f15(p->next, x - 1) : 0);
}
struct s16 { int a16; double b16; char c16[42]; struct s16 *next; };
int f16(struct s16 *p, int x) {
  x = x * 20 + (x >> 4) ^ 714;
  if (x % 17 == 0) { p->a16 += x; snprintf(p->c16, sizeof p->c16, "%d", x); }
  x = x * 91 + (x >> 5) ^ 210;
  if (x % 16 == 0) { p->a16 += x; snprintf(p->c16, sizeof p->c16, "%d", x); }
  x = x * 76 + (x >> 7) ^ 923;
  if (x % 2 == 0) { p->a16 += x; snprintf(p->c16, sizeof p->c16, "%d", x); }
  x = x * 63 + (x >> 6) ^ 74;
  if (x % 14 == 0) { p->a16 += x; snprintf(p->c16, sizeof p->c16, "%d", x); }
  x = x * 95 + (x >> 1) ^ 478;
  if (x % 9 == 0) { p->a16 += x; snprintf(p->c16, sizeof p->c16, "%d", x); }
  x = x * 32 + (x >> 6) ^ 734;
  if (x % 4 == 0) { p->a16 += x; snprintf(p->c16, sizeof p->c16, "%d", x); }
  x = x * 29 + (x >> 7) ^ 260;
  if (x % 9 == 0) { p->a16 += x; snprintf(p->c16, sizeof p->c16, "%d", x); }
  x = x * 26 + (x >> 7) ^ 264;
  if (x % 6 == 0) { p->a16 += x; snprintf(p->c16, sizeof p->c16, "%d", x); }
  x = x * 25 + (x >> 5) ^ 721;
  if (x % 3 == 0) { p->a16 += x; snprintf(p->c16, sizeof p->c16, "%d", x); }
  x = x * 34 + (x >> 2) ^ 885;
  if (x % 3 == 0) { p->a16 += x; snprintf(p->c16, sizeof p->c16, "%d", x); }
  return x + (p->next ? f16(p->next, x - 1) : 0);
}
struct s17 { int a17; double b17; char c17[41]; struct s17 *next; };
int f17(struct s17 *p, int x) {
  x = x * 56 + (x >> 1) ^ 746;
  if (x % 4 == 0) { p->a17 += x; snprintf(p->c17, sizeof p->c17, "%d", x); }
  x = x * 17 + (x >> 1) ^ 270;
  if (x % 11 == 0) { p->a17 += x; snprintf(p->c17, sizeof p->c17, "%d", x); }
  x = x * 6 + (x >> 3) ^ 463;
  if (x % 12 == 0) { p->a17 += x; snprintf(p->c17, sizeof p->c17, "%d", x); }
  x = x * 2 + (x >> 1) ^ 342;
  if (x % 12 == 0) { p->a17 += x; snprintf(p->c17, sizeof p->c17, "%d", x); }
  x = x * 57 + (x >> 4) ^ 497;
  if (x % 4 == 0) { p->a17 += x; snprintf(p->c17, sizeof p->c17, "%d", x); }
  return x + (p->next ? f17(p->next, x - 1) : 0);
}
struct s18 { int a18; double b18; char c18[27]; struct s18 *next; };
int f18(struct s18 *p, int x) {
  x = x * 76 + (x >> 6) ^ 978;
  if (x % 17 == 0) { p->a18 += x; snprintf(p->c18, sizeof p->c18, "%d", x); }
  x = x * 52 + (x >> 2) ^ 557;
  if (x % 12 == 0) { p->a18 += x; snprintf(p->c18, sizeof p->c18, "%d", x); }
  x = x * 17 + (x >> 3) ^ 78;
  if (x % 15 == 0) { p->a18 += x; snprintf(p->c18, sizeof p->c18, "%d", x); }
  x = x * 16 + (x >> 4) ^ 908;
  if (x % 10 == 0) { p->a18 += x; snprintf(p->c18, sizeof p->c18, "%d", x); }
  x = x * 14 + (x >> 5) ^ 963;
  if (x % 13 == 0) { p->a18 += x; snprintf(p->c18, sizeof p->c18, "%d", x); }
  x = x * 88 + (x >> 7) ^ 377;
  if (x % 16 == 0) { p->a18 += x; snprintf(p->c18, sizeof p->c18, "%d", x); }
  x = x * 39 + (x >> 6) ^ 692;
  if (x % 10 == 0) { p->a18 += x; snprintf(p->c18, sizeof p->c18, "%d", x); }
  x = x * 15 + (x >> 7) ^ 967;
  if (x % 12 == 0) { p->a18 += x; snprintf(p->c18, sizeof p->c18, "%d", x); }
  x = x * 88 + (x >> 5) ^ 549;
  if (x % 5 == 0) { p->a18 += x; snprintf(p->c18, sizeof p->c18, "%d", x); }
  x = x * 87 + (x >> 4) ^ 520;
  if (x % 13 == 0) { p->a18 += x; snprintf(p->c18, sizeof p->c18, "%d", x); }
  x = x * 9 + (x >> 6) ^ 301;
  if (x % 7 == 0) { p->a18 += x; snprintf(p->c18, sizeof p->c18, "%d", x); }
  x = x * 84 + (x >> 6) ^ 747;
  if (x % 6 == 0) { p->a18 += x; snprintf(p->c18, sizeof p->c18, "%d", x); }
  x = x * 24 + (x >> 3) ^ 911;
  if (x % 16 == 0) { p->a18 += x; snprintf(p->c18, sizeof p->c18, "%d", x); }
  return x + (p->next ? f18(p->next, x - 1) : 0);
}
struct s19 { int a19; double b19; char c19[16]; struct s19 *next; };
int f19(struct s19 *p, int x) {
  x = x * 73 + (x >> 2) ^ 942;
  if (x % 12 == 0) { p->a19 += x; snprintf(p->c19, sizeof p->c19, "%d", x); }
  x = x * 84 + (x >> 6) ^ 665;
  if (x % 15 == 0) { p->a19 += x; snprintf(p->c19, sizeof p->c19, "%d", x); }
  x = x * 73 + (x >> 3) ^ 663;
  if (x % 7 == 0) { p->a19 += x; snprintf(p->c19, sizeof p->c19, "%d", x); }
  x = x * 60 + (x >> 4) ^ 319;
  if (x % 7 == 0) { p->a19 += x; snprintf(p->c19, sizeof p->c19, "%d", x); }
  return x + (p->next ? f19(p->next, x - 1) : 0);
}
struct s20 { int a20; double b20; char c20[9]; struct s20 *next; };
int f20(struct s20 *p, int x) {
  x = x * 93 + (x >> 2) ^ 772;
  if (x % 14 == 0) { p->a20 += x; snprintf(p->c20, sizeof p->c20, "%d", x); }
  x = x * 47 + (x >> 1) ^ 272;
  if (x % 10 == 0) { p->a20 += x; snprintf(p->c20, sizeof p->c20, "%d", x); }
  x = x * 51 + (x >> 1) ^ 893;
  if (x % 6 == 0) { p->a20 += x; snprintf(p->c20, sizeof p->c20, "%d", x); }
  x = x * 7 + (x >> 4) ^ 516;
  if (x % 10 == 0) { p->a20 += x; snprintf(p->c20, sizeof p->c20, "%d", x); }
  return x + (p->next ? f20(p->next, x - 1) : 0);
}
struct s21 { int a21; double b21; char c21[32]; struct s21 *next; };
int f21(struct s21 *p, int x) {
  x = x * 67 + (x >> 3) ^ 896;
  if (x % 12 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  x = x * 53 + (x >> 4) ^ 554;
  if (x % 4 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  x = x * 47 + (x >> 4) ^ 867;
  if (x % 5 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  x = x * 21 + (x >> 3) ^ 604;
  if (x % 5 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  x = x * 89 + (x >> 1) ^ 577;
  if (x % 5 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  x = x * 25 + (x >> 6) ^ 193;
  if (x % 15 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  x = x * 87 + (x >> 6) ^ 400;
  if (x % 6 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  x = x * 77 + (x >> 5) ^ 149;
  if (x % 14 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  x = x * 26 + (x >> 5) ^ 540;
  if (x % 7 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  x = x * 74 + (x >> 2) ^ 206;
  if (x % 10 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  x = x * 49 + (x >> 7) ^ 300;
  if (x % 2 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  x = x * 58 + (x >> 4) ^ 972;
  if (x % 14 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  x = x * 42 + (x >> 5) ^ 927;
  if (x % 11 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  x = x * 83 + (x >> 4) ^ 1000;
  if (x % 11 == 0) { p->a21 += x; snprintf(p->c21, sizeof p->c21, "%d", x); }
  return x + (p->next ? f21(p->next, x - 1) : 0);
}
struct s22 { int a22; double b22; char c22[62]; struct s22 *next; };
int f22(struct s22 *p, int x) {
  x = x * 78 + (x >> 2) ^ 744;
  if (x % 2 == 0) { p->a22 += x; snprintf(p->c22, sizeof p->c22, "%d", x); }
  x = x * 15 + (x >> 7) ^ 774;
  if (x % 9 == 0) { p->a22 += x; snprintf(p->c22, sizeof p->c22, "%d", x); }
  x = x * 64 + (x >> 2) ^ 536;
  if (x % 16 == 0) { p->a22 += x; snprintf(p->c22, sizeof p->c22, "%d", x); }
  return x + (p->next ? f22(p->next, x - 1) : 0);
}
struct s23 { int a23; double b23; char c23[26]; struct s23 *next; };
int f23(struct s23 *p, int x) {
  x = x * 69 + (x >> 2) ^ 37;
  if (x % 16 == 0) { p->a23 += x; snprintf(p->c23, sizeof p->c23, "%d", x); }
  x = x * 16 + (x >> 5) ^ 290;
  if (x % 6 == 0) { p->a23 += x; snprintf(p->c23, sizeof p->c23, "%d", x); }
  x = x * 19 + (x >> 4) ^ 811;
  if (x % 4 == 0) { p->a23 += x; snprintf(p->c23, sizeof p->c23, "%d", x); }
  x = x * 81 + (x >> 1) ^ 26;
  if (x % 13 == 0) { p->a23 += x; snprintf(p->c23, sizeof p->c23, "%d", x); }
  x = x * 81 + (x >> 2) ^ 518;
  if (x % 4 == 0) { p->a23 += x; snprintf(p->c23, sizeof p->c23, "%d", x); }
  x = x * 65 + (x >> 5) ^ 19;
  if (x % 12 == 0) { p->a23 += x; snprintf(p->c23, sizeof p->c23, "%d", x); }
  return x + (p->next ? f23(p->next, x - 1) : 0);
}
struct s24 { int a24; double b24; char c24[42]; struct s24 *next; };
int f24(struct s24 *p, int x) {
  x = x * 46 + (x >> 6) ^ 710;
  if (x % 6 == 0) { p->a24 += x; snprintf(p->c24, sizeof p->c24, "%d", x); }
  x = x * 12 + (x >> 7) ^ 859;
  if (x % 3 == 0) { p->a24 += x; snprintf(p->c24, sizeof p->c24, "%d", x); }
  x = x * 93 + (x >> 1) ^ 757;
  if (x % 12 == 0) { p->a24 += x; snprintf(p->c24, sizeof p->c24, "%d", x); }
  x = x * 28 + (x >> 1) ^ 882;
  if (x % 8 == 0) { p->a24 += x; snprintf(p->c24, sizeof p->c24, "%d", x); }
  x = x * 57 + (x >> 6) ^ 775;
  if (x % 9 == 0) { p->a24 += x; snprintf(p->c24, sizeof p->c24, "%d", x); }
  x = x * 64 + (x >> 3) ^ 111;
  if (x % 3 == 0) { p->a24 += x; snprintf(p->c24, sizeof p->c24, "%d", x); }
  x = x * 54 + (x >> 1) ^ 865;
  if (x % 8 == 0) { p->a24 += x; snprintf(p->c24, sizeof p->c24, "%d", x); }
  x = x * 92 + (x >> 2) ^ 400;
  if (x % 17 == 0) { p->a24 += x; snprintf(p->c24, sizeof p->c24, "%d", x); }
  return x + (p->next ? f24(p->next, x - 1) : 0);
}
int main(void){return 0;}
