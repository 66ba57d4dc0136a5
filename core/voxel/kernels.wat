;; The voxel packer's inner loops in WebAssembly SIMD, four voxels a step (see wasm-kernels.ts).
;; Source of kernels-wasm.ts: `npm run build:wasm` compiles this file; a test checks they agree.
;;
;; Memory (shared, imported): the bit matrix at byte 0 (one slab: plane z starts at word z·wpp,
;; row y at y·wpr, bit x & 31 of word x >> 5), then the heap of wasm-kernels.ts: coordinates as
;; interleaved i32 (x, y, z) padded to a multiple of 4 voxels, the shapes' coordinates once more as
;; f32 x, y and z blocks of that padded length (the rotation's input), and self masks.
;;
;; Rotation is the one of rotation.ts (three 2D rotations about x, y, z), in single precision,
;; rounded as floor(v + 0.5): a coordinate within ~1e-4 voxel of a half may round otherwise than
;; in rotation.ts (double precision). x and y wrap with one subtraction from a non-negative reference corner (seed Fig. 7):
;; the caller passes bx, by and guarantees 2·extent + 1 < nx, ny.
(module
  (import "env" "memory" (memory 1 16384 shared))
  (global $nx (mut i32) (i32.const 0))
  (global $ny (mut i32) (i32.const 0))
  (global $nz (mut i32) (i32.const 0))
  (global $wpr (mut i32) (i32.const 0))
  (global $wpp (mut i32) (i32.const 0))
  (global $scratch (mut i32) (i32.const 0))

  (func (export "init") (param $nx i32) (param $ny i32) (param $nz i32) (param $wpr i32) (param $wpp i32) (param $scratch i32)
    (global.set $nx (local.get $nx))
    (global.set $ny (local.get $ny))
    (global.set $nz (local.get $nz))
    (global.set $wpr (local.get $wpr))
    (global.set $wpp (local.get $wpp))
    (global.set $scratch (local.get $scratch)))

  ;; Index of the first of n voxels (rot = 1: src as f32 blocks, rotated; rot = 0: src interleaved
  ;; i32, as they are) that hits
  ;; at centre (bx, by, oz), or -1. A hit: outside the box in z, or a set bit that is not marked
  ;; in the self mask at mw (bit ((z + mz)·ms + y + my)·ms + x + mx; en = 0: no mask, mw points
  ;; at a zero word). Rotated voxels are stored to dst (all of them when -1 is returned).
  (func (export "test")
    (param $n i32) (param $src i32) (param $dst i32) (param $rot i32)
    (param $cx f32) (param $sx f32) (param $cy f32) (param $sy f32) (param $cz f32) (param $sz f32)
    (param $bx i32) (param $by i32) (param $oz i32)
    (param $mw i32) (param $en i32) (param $ms i32) (param $mx i32) (param $my i32) (param $mz i32)
    (result i32)
    (local $i i32) (local $p i32) (local $q i32) (local $step i32) (local $block i32)
    (local $a v128) (local $b v128) (local $c v128) (local $t v128)
    (local $x v128) (local $y v128) (local $z v128) (local $y1 v128) (local $z1 v128) (local $x2 v128)
    (local $X v128) (local $Y v128) (local $Z v128) (local $zbad v128) (local $W v128) (local $M v128)
    (local $words v128) (local $mwords v128) (local $hit v128) (local $k i32)
    ;; Every vector the loop needs but does not change, made once and kept at $scratch: TurboFan
    ;; schedules a splat or constant next to its use, inside the loop (two or three instructions
    ;; an iteration each, on the shuffle port), but a load from memory stays one operand.
    ;; Scratch layout (byte offset: vector): 0 cos x, 16 sin x, 32 cos y, 48 sin y, 64 cos z,
    ;; 80 sin z, 96 0.5, 112 MAGIC, 128 lane numbers, 144 n, 160 bx, 176 by, 192 oz, 208 nx,
    ;; 224 ny, 240 nz, 256 nx - 1, 272 ny - 1, 288 wpp, 304 wpr, 320 ms, 336 ms², 352 K, 368 mw,
    ;; 384 en, 400 BITS, 416 31 in every byte, 432 BYTE.
    (local.set $k (global.get $scratch))
    (v128.store offset=0 (local.get $k) (f32x4.splat (local.get $cx)))
    (v128.store offset=16 (local.get $k) (f32x4.splat (local.get $sx)))
    (v128.store offset=32 (local.get $k) (f32x4.splat (local.get $cy)))
    (v128.store offset=48 (local.get $k) (f32x4.splat (local.get $sy)))
    (v128.store offset=64 (local.get $k) (f32x4.splat (local.get $cz)))
    (v128.store offset=80 (local.get $k) (f32x4.splat (local.get $sz)))
    (v128.store offset=96 (local.get $k) (f32x4.splat (f32.const 0.5)))
    ;; 1.5 * 2^23: adding it to an integral float below 2^22 puts the integer in the low bits.
    (v128.store offset=112 (local.get $k) (f32x4.splat (f32.const 12582912)))
    (v128.store offset=128 (local.get $k) (v128.const i32x4 0 1 2 3))
    (v128.store offset=144 (local.get $k) (i32x4.splat (local.get $n)))
    (v128.store offset=160 (local.get $k) (i32x4.splat (local.get $bx)))
    (v128.store offset=176 (local.get $k) (i32x4.splat (local.get $by)))
    (v128.store offset=192 (local.get $k) (i32x4.splat (local.get $oz)))
    (v128.store offset=208 (local.get $k) (i32x4.splat (global.get $nx)))
    (v128.store offset=224 (local.get $k) (i32x4.splat (global.get $ny)))
    (v128.store offset=240 (local.get $k) (i32x4.splat (global.get $nz)))
    (v128.store offset=256 (local.get $k) (i32x4.splat (i32.sub (global.get $nx) (i32.const 1))))
    (v128.store offset=272 (local.get $k) (i32x4.splat (i32.sub (global.get $ny) (i32.const 1))))
    (v128.store offset=288 (local.get $k) (i32x4.splat (global.get $wpp)))
    (v128.store offset=304 (local.get $k) (i32x4.splat (global.get $wpr)))
    ;; mask bit (z + mz)·ms² + (y + my)·ms + x + mx = z·ms² + y·ms + x + K
    (v128.store offset=320 (local.get $k) (i32x4.splat (local.get $ms)))
    (v128.store offset=336 (local.get $k) (i32x4.splat (i32.mul (local.get $ms) (local.get $ms))))
    (v128.store offset=352 (local.get $k) (i32x4.splat (i32.add (i32.mul (i32.add (i32.mul (local.get $mz) (local.get $ms)) (local.get $my)) (local.get $ms)) (local.get $mx))))
    (v128.store offset=368 (local.get $k) (i32x4.splat (local.get $mw)))
    ;; 1 << (v & 31) in each lane (no per-lane shift in WebAssembly SIMD): byte k of the lane is
    ;; BITS[(v & 31) - 8k], 2^that for 0..7, else 0 (entries 8..15 are 0, 16 and more give 0).
    ;; Four instructions; the float-exponent trick costs 15 (its unsigned conversion is emulated).
    (v128.store offset=400 (local.get $k) (v128.const i8x16 1 2 4 8 16 32 64 128 0 0 0 0 0 0 0 0))
    (v128.store offset=416 (local.get $k) (i8x16.splat (i32.const 31)))
    (v128.store offset=432 (local.get $k) (v128.const i8x16 0 8 16 24 0 8 16 24 0 8 16 24 0 8 16 24))
    (v128.store offset=384 (local.get $k) (i32x4.splat (local.get $en)))
    (local.set $p (local.get $src))
    (local.set $q (local.get $dst))
    ;; bytes of one f32 block (n padded to 4), and of one step through src
    (local.set $block (i32.shl (i32.and (i32.add (local.get $n) (i32.const 3)) (i32.const -4)) (i32.const 2)))
    (local.set $step (select (i32.const 16) (i32.const 48) (local.get $rot)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (if (i32.eqz (local.get $rot))
          (then
            ;; four voxels: [x0 y0 z0 x1] [y1 z1 x2 y2] [z2 x3 y3 z3]
            (local.set $a (v128.load (local.get $p)))
            (local.set $b (v128.load offset=16 (local.get $p)))
            (local.set $c (v128.load offset=32 (local.get $p)))
            (local.set $x (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 20 21 22 23
              (i8x16.shuffle 0 1 2 3 12 13 14 15 24 25 26 27 24 25 26 27 (local.get $a) (local.get $b)) (local.get $c)))
            (local.set $y (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 24 25 26 27
              (i8x16.shuffle 4 5 6 7 16 17 18 19 28 29 30 31 28 29 30 31 (local.get $a) (local.get $b)) (local.get $c)))
            (local.set $z (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 28 29 30 31
              (i8x16.shuffle 8 9 10 11 20 21 22 23 20 21 22 23 20 21 22 23 (local.get $a) (local.get $b)) (local.get $c))))
          (else
            (local.set $a (v128.load (local.get $p)))
            (local.set $b (v128.load (i32.add (local.get $p) (local.get $block))))
            (local.set $c (v128.load (i32.add (local.get $p) (i32.shl (local.get $block) (i32.const 1)))))
            ;; about x: y1, z1
            (local.set $y1 (f32x4.sub (f32x4.mul (v128.load offset=0 (local.get $k)) (local.get $b)) (f32x4.mul (v128.load offset=16 (local.get $k)) (local.get $c))))
            (local.set $z1 (f32x4.add (f32x4.mul (v128.load offset=16 (local.get $k)) (local.get $b)) (f32x4.mul (v128.load offset=0 (local.get $k)) (local.get $c))))
            ;; about y: z (final), x2; floor(v + 0.5) to an integer through MAGIC (cheaper than trunc_sat)
            (local.set $z (i32x4.sub (f32x4.add (f32x4.floor (f32x4.add
              (f32x4.sub (f32x4.mul (v128.load offset=32 (local.get $k)) (local.get $z1)) (f32x4.mul (v128.load offset=48 (local.get $k)) (local.get $a))) (v128.load offset=96 (local.get $k)))) (v128.load offset=112 (local.get $k))) (v128.load offset=112 (local.get $k))))
            (local.set $x2 (f32x4.add (f32x4.mul (v128.load offset=48 (local.get $k)) (local.get $z1)) (f32x4.mul (v128.load offset=32 (local.get $k)) (local.get $a))))
            ;; about z: x, y (final)
            (local.set $x (i32x4.sub (f32x4.add (f32x4.floor (f32x4.add
              (f32x4.sub (f32x4.mul (v128.load offset=64 (local.get $k)) (local.get $x2)) (f32x4.mul (v128.load offset=80 (local.get $k)) (local.get $y1))) (v128.load offset=96 (local.get $k)))) (v128.load offset=112 (local.get $k))) (v128.load offset=112 (local.get $k))))
            (local.set $y (i32x4.sub (f32x4.add (f32x4.floor (f32x4.add
              (f32x4.add (f32x4.mul (v128.load offset=80 (local.get $k)) (local.get $x2)) (f32x4.mul (v128.load offset=64 (local.get $k)) (local.get $y1))) (v128.load offset=96 (local.get $k)))) (v128.load offset=112 (local.get $k))) (v128.load offset=112 (local.get $k))))
            ;; store interleaved again
            (local.set $t (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $x) (local.get $y)))
            (v128.store (local.get $q) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 8 9 10 11 (local.get $t) (local.get $z)))
            (local.set $t (i8x16.shuffle 8 9 10 11 20 21 22 23 24 25 26 27 12 13 14 15 (local.get $x) (local.get $y)))
            (v128.store offset=16 (local.get $q) (i8x16.shuffle 4 5 6 7 20 21 22 23 0 1 2 3 8 9 10 11 (local.get $t) (local.get $z)))
            (local.set $t (i8x16.shuffle 12 13 14 15 28 29 30 31 12 13 14 15 28 29 30 31 (local.get $x) (local.get $y)))
            (v128.store offset=32 (local.get $q) (i8x16.shuffle 24 25 26 27 0 1 2 3 4 5 6 7 28 29 30 31 (local.get $t) (local.get $z)))))
        ;; matrix position: wrap x, y once; z outside the box is a hit
        (local.set $X (i32x4.add (local.get $x) (v128.load offset=160 (local.get $k))))
        (local.set $X (i32x4.sub (local.get $X) (v128.and (v128.load offset=208 (local.get $k)) (i32x4.gt_s (local.get $X) (v128.load offset=256 (local.get $k))))))
        (local.set $Y (i32x4.add (local.get $y) (v128.load offset=176 (local.get $k))))
        (local.set $Y (i32x4.sub (local.get $Y) (v128.and (v128.load offset=224 (local.get $k)) (i32x4.gt_s (local.get $Y) (v128.load offset=272 (local.get $k))))))
        (local.set $Z (i32x4.add (local.get $z) (v128.load offset=192 (local.get $k))))
        (local.set $zbad (v128.or (i32x4.lt_s (local.get $Z) (v128.const i32x4 0 0 0 0)) (i32x4.ge_s (local.get $Z) (v128.load offset=240 (local.get $k)))))
        (local.set $Z (v128.andnot (local.get $Z) (local.get $zbad)))
        (local.set $W (i32x4.shl (i32x4.add
          (i32x4.add (i32x4.mul (local.get $Z) (v128.load offset=288 (local.get $k))) (i32x4.mul (local.get $Y) (v128.load offset=304 (local.get $k))))
          (i32x4.shr_s (local.get $X) (i32.const 5))) (i32.const 2)))
        (local.set $words (v128.load32_lane 0 (i32x4.extract_lane 0 (local.get $W)) (local.get $words)))
        (local.set $words (v128.load32_lane 1 (i32x4.extract_lane 1 (local.get $W)) (local.get $words)))
        (local.set $words (v128.load32_lane 2 (i32x4.extract_lane 2 (local.get $W)) (local.get $words)))
        (local.set $words (v128.load32_lane 3 (i32x4.extract_lane 3 (local.get $W)) (local.get $words)))
        ;; self mask bit (0 without a mask)
        (local.set $M (v128.and (v128.load offset=384 (local.get $k)) (i32x4.add
          (i32x4.add (i32x4.mul (local.get $z) (v128.load offset=336 (local.get $k))) (i32x4.mul (local.get $y) (v128.load offset=320 (local.get $k))))
          (i32x4.add (local.get $x) (v128.load offset=352 (local.get $k))))))
        (local.set $W (i32x4.add (v128.load offset=368 (local.get $k)) (i32x4.shl (i32x4.shr_u (local.get $M) (i32.const 5)) (i32.const 2))))
        (local.set $mwords (v128.load32_lane 0 (i32x4.extract_lane 0 (local.get $W)) (local.get $mwords)))
        (local.set $mwords (v128.load32_lane 1 (i32x4.extract_lane 1 (local.get $W)) (local.get $mwords)))
        (local.set $mwords (v128.load32_lane 2 (i32x4.extract_lane 2 (local.get $W)) (local.get $mwords)))
        (local.set $mwords (v128.load32_lane 3 (i32x4.extract_lane 3 (local.get $W)) (local.get $mwords)))
        ;; hit: (set and not self, or outside in z) in a lane below n
        (local.set $hit (v128.and
          (i32x4.lt_s (i32x4.add (i32x4.splat (local.get $i)) (v128.load offset=128 (local.get $k))) (v128.load offset=144 (local.get $k)))
          (v128.or (local.get $zbad) (v128.and
            (i32x4.ne (v128.and (local.get $words) (i8x16.swizzle (v128.load offset=400 (local.get $k)) (i8x16.sub (v128.and (i8x16.shuffle 0 0 0 0 4 4 4 4 8 8 8 8 12 12 12 12 (local.get $X) (local.get $X)) (v128.load offset=416 (local.get $k))) (v128.load offset=432 (local.get $k))))) (v128.const i32x4 0 0 0 0))
            (i32x4.eq (v128.and (local.get $mwords) (i8x16.swizzle (v128.load offset=400 (local.get $k)) (i8x16.sub (v128.and (i8x16.shuffle 0 0 0 0 4 4 4 4 8 8 8 8 12 12 12 12 (local.get $M) (local.get $M)) (v128.load offset=416 (local.get $k))) (v128.load offset=432 (local.get $k))))) (v128.const i32x4 0 0 0 0))))))
        (if (v128.any_true (local.get $hit))
          (then (return (i32.add (local.get $i) (i32.ctz (i32x4.bitmask (local.get $hit)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (local.set $p (i32.add (local.get $p) (local.get $step)))
        (local.set $q (i32.add (local.get $q) (i32.const 48)))
        (br $next)))
    (i32.const -1))

  ;; Sets (on = -1) or clears (on = 0) the n voxels at src around (bx, by, oz), all inside the box
  ;; in z. mw != 0: afterwards the self mask at mw (mbytes long, side ms, offsets within ±b) holds
  ;; exactly these voxels. Scalar: two voxels may share a word, and V8 compiles this loop with
  ;; lane extractions slower than the plain one.
  (func (export "apply")
    (param $n i32) (param $src i32) (param $bx i32) (param $by i32) (param $oz i32) (param $on i32)
    (param $mw i32) (param $mbytes i32) (param $ms i32) (param $b i32)
    (local $p i32) (local $end i32) (local $x i32) (local $y i32) (local $z i32) (local $X i32) (local $Y i32) (local $w i32) (local $m i32)
    ;; Clear the mask 16 bytes a step (its heap block is padded to 64): memory.fill on a shared
    ;; memory is a runtime call in V8.
    (if (local.get $mw)
      (then
        (local.set $w (local.get $mw))
        (local.set $end (i32.add (local.get $mw) (local.get $mbytes)))
        (block $cleared
          (loop $clear
            (br_if $cleared (i32.ge_u (local.get $w) (local.get $end)))
            (v128.store (local.get $w) (v128.const i32x4 0 0 0 0))
            (local.set $w (i32.add (local.get $w) (i32.const 16)))
            (br $clear)))))
    (local.set $p (local.get $src))
    (local.set $end (i32.add (local.get $src) (i32.mul (local.get $n) (i32.const 12))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $x (i32.load (local.get $p)))
        (local.set $y (i32.load offset=4 (local.get $p)))
        (local.set $z (i32.load offset=8 (local.get $p)))
        (local.set $X (i32.add (local.get $x) (local.get $bx)))
        (local.set $X (select (i32.sub (local.get $X) (global.get $nx)) (local.get $X) (i32.ge_s (local.get $X) (global.get $nx))))
        (local.set $Y (i32.add (local.get $y) (local.get $by)))
        (local.set $Y (select (i32.sub (local.get $Y) (global.get $ny)) (local.get $Y) (i32.ge_s (local.get $Y) (global.get $ny))))
        (local.set $w (i32.shl (i32.add (i32.add
          (i32.mul (i32.add (local.get $z) (local.get $oz)) (global.get $wpp)) (i32.mul (local.get $Y) (global.get $wpr)))
          (i32.shr_s (local.get $X) (i32.const 5))) (i32.const 2)))
        (i32.store (local.get $w) (i32.or
          (i32.and (i32.load (local.get $w)) (i32.xor (i32.shl (i32.const 1) (local.get $X)) (i32.const -1)))
          (i32.and (i32.shl (i32.const 1) (local.get $X)) (local.get $on))))
        (if (local.get $mw)
          (then
            (local.set $m (i32.add (i32.mul (i32.add (i32.mul (i32.add (local.get $z) (local.get $b)) (local.get $ms))
              (i32.add (local.get $y) (local.get $b))) (local.get $ms)) (i32.add (local.get $x) (local.get $b))))
            (local.set $w (i32.add (local.get $mw) (i32.shl (i32.shr_u (local.get $m) (i32.const 5)) (i32.const 2))))
            (i32.store (local.get $w) (i32.or (i32.load (local.get $w)) (i32.shl (i32.const 1) (local.get $m))))))
        (local.set $p (i32.add (local.get $p) (i32.const 12)))
        (br $next)))))
