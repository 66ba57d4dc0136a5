;; The voxel packer's inner loops in WebAssembly SIMD, four voxels a step (see wasm-kernels.ts).
;; Source of kernels-wasm.ts: `npm run build:wasm` compiles this file; a test checks they agree.
;;
;; Memory (shared, imported): the bit matrix at byte 0 (one slab, in either layout of
;; bit-matrix.ts: see the globals below), one all-ones word, then the heap of
;; wasm-kernels.ts: the shapes' coordinates as f32 x, y and z blocks (n padded to a multiple of 4
;; voxels), each particle's voxels as `test` leaves them (matrix word, x, mask bit; blocks of the
;; same length) and its self mask.
;;
;; The self mask is the one of bit-matrix.ts (selfMaskWords): the particle's own voxels as bits of a
;; cube of side ms = 2b + 1 around the centre it was made at, bit ((z + b)·ms + y + b)·ms + x + b
;; for a voxel at (x, y, z) from that centre.
;;
;; Rotation is the one of rotation.ts (three 2D rotations about x, y, z), in single precision,
;; rounded as floor(v + 0.5): a coordinate within ~1e-4 voxel of a half may round otherwise than
;; in rotation.ts (double precision). x and y wrap with one subtraction from a non-negative
;; reference corner (seed Fig. 7): the caller passes bx, by such that bx + x, by + y lie in [0, 2nx), [0, 2ny) (matrix.ts corner).
(module
  (import "env" "memory" (memory 1 16384 shared))
  (global $nx (mut i32) (i32.const 0))
  (global $ny (mut i32) (i32.const 0))
  (global $ones (mut i32) (i32.const 0))
  (global $scratch (mut i32) (i32.const 0))
  ;; The layout (bit-matrix.ts): the word of (X, Y, Z) is at byte
  ;; (Z >> zShift)·zBytes + (Y >> yShift)·yBytes + ((X >> xShift) << xUp) + ((Z & zLow) << 3) + (Y & yLow),
  ;; its bit is (Y << yBitShift) + (X & xLow) mod 32. Rows: Z·4wpp + Y·4wpr + 4·(X >> 5), bit X;
  ;; bricks of 8³: 64 bytes a brick, word (Z & 7)·2 + ((Y >> 2) & 1), bit ((Y & 3) << 3) + (X & 7).
  (global $zShift (mut i32) (i32.const 0))
  (global $zBytes (mut i32) (i32.const 0))
  (global $yShift (mut i32) (i32.const 0))
  (global $yBytes (mut i32) (i32.const 0))
  (global $xShift (mut i32) (i32.const 0))
  (global $xUp (mut i32) (i32.const 0))
  (global $zLow (mut i32) (i32.const 0))
  (global $yLow (mut i32) (i32.const 0))
  (global $yBitShift (mut i32) (i32.const 0))
  (global $xLow (mut i32) (i32.const 0))

  (func (export "init")
    (param $nx i32) (param $ny i32) (param $matrixBytes i32) (param $scratch i32)
    (param $zShift i32) (param $zBytes i32) (param $yShift i32) (param $yBytes i32) (param $xShift i32) (param $xUp i32)
    (param $zLow i32) (param $yLow i32) (param $yBitShift i32) (param $xLow i32)
    (global.set $nx (local.get $nx))
    (global.set $ny (local.get $ny))
    ;; the word right after the matrix (all ones, see wasm-kernels.ts): z outside the box reads it
    (global.set $ones (local.get $matrixBytes))
    (global.set $scratch (local.get $scratch))
    (global.set $zShift (local.get $zShift))
    (global.set $zBytes (local.get $zBytes))
    (global.set $yShift (local.get $yShift))
    (global.set $yBytes (local.get $yBytes))
    (global.set $xShift (local.get $xShift))
    (global.set $xUp (local.get $xUp))
    (global.set $zLow (local.get $zLow))
    (global.set $yLow (local.get $yLow))
    (global.set $yBitShift (local.get $yBitShift))
    (global.set $xLow (local.get $xLow)))

  ;; Index of the first of n voxels that hits at centre (bx, by, oz), or -1. The voxels are the
  ;; shape's f32 blocks at src (the lanes past n repeating voxel n - 1), rotated (cosines and
  ;; sines cx..sz) and rounded. A hit: outside the box in z, or a set matrix bit that is not set
  ;; in the self mask at mw (all zero for a particle not yet in the matrix), whose cube (side ms)
  ;; is (mx, my, mz) from this centre: voxel (x, y, z) has mask bit ((z + mz)·ms + y + my)·ms + x + mx.
  ;;
  ;; For every voxel tested, dst gets (three blocks of n padded to 4): the byte address of its
  ;; matrix word, its bit in that word (mod 32) and its mask bit. The scalar loops shift by the bit
  ;; and by the mask bit themselves (wasm's shifts take the count mod 32), so the SIMD part spends
  ;; no instruction on 1 << bit; `move` uses these to write the particle there.
  (func (export "test")
    (param $n i32) (param $src i32) (param $dst i32)
    (param $cx f32) (param $sx f32) (param $cy f32) (param $sy f32) (param $cz f32) (param $sz f32)
    (param $bx i32) (param $by i32) (param $oz i32)
    (param $mw i32) (param $ms i32) (param $mx i32) (param $my i32) (param $mz i32)
    (result i32)
    (local $i i32) (local $p i32) (local $q i32) (local $block i32) (local $block2 i32) (local $end i32) (local $last i32) (local $k i32) (local $m i32) (local $h0 i32) (local $h1 i32) (local $h2 i32) (local $h3 i32)
    (local $a v128) (local $b v128) (local $c v128)
    (local $x v128) (local $y v128) (local $z v128) (local $y1 v128) (local $z1 v128) (local $x2 v128)
    (local $X v128) (local $Y v128) (local $Z v128)
    ;; Every vector the loop needs but does not change, made once and kept at $scratch: TurboFan
    ;; schedules a splat or constant next to its use, inside the loop (two or three instructions
    ;; an iteration each, on the shuffle port), but a load from memory stays one operand.
    ;; Scratch layout (byte offset: vector): 0 cos x, 16 sin x, 32 cos y, 48 sin y, 64 cos z,
    ;; 80 sin z, 96 0.5, 112 MAGIC, 128 bx - MB, 144 by - MB, 160 oz - MB, 176 nx, 192 ny,
    ;; 208 the all-ones word's address, 224 zBytes, 240 yBytes, 256 ms², 272 ms, 288 K, 304 zLow,
    ;; 320 yLow, 336 xLow.
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
    (v128.store offset=128 (local.get $k) (i32x4.splat (i32.sub (local.get $bx) (i32.const 0x4b400000))))
    (v128.store offset=144 (local.get $k) (i32x4.splat (i32.sub (local.get $by) (i32.const 0x4b400000))))
    (v128.store offset=160 (local.get $k) (i32x4.splat (i32.sub (local.get $oz) (i32.const 0x4b400000))))
    (v128.store offset=176 (local.get $k) (i32x4.splat (global.get $nx)))
    (v128.store offset=192 (local.get $k) (i32x4.splat (global.get $ny)))
    (v128.store offset=208 (local.get $k) (i32x4.splat (global.get $ones)))
    (v128.store offset=224 (local.get $k) (i32x4.splat (global.get $zBytes)))
    (v128.store offset=240 (local.get $k) (i32x4.splat (global.get $yBytes)))
    (v128.store offset=304 (local.get $k) (i32x4.splat (global.get $zLow)))
    (v128.store offset=320 (local.get $k) (i32x4.splat (global.get $yLow)))
    (v128.store offset=336 (local.get $k) (i32x4.splat (global.get $xLow)))
    ;; mask bit ((z + mz)·ms + y + my)·ms + x + mx = z·ms² + y·ms + x + K
    (v128.store offset=256 (local.get $k) (i32x4.splat (i32.mul (local.get $ms) (local.get $ms))))
    (v128.store offset=272 (local.get $k) (i32x4.splat (local.get $ms)))
    (v128.store offset=288 (local.get $k) (i32x4.splat (i32.sub
      (i32.add (i32.mul (i32.add (i32.mul (local.get $mz) (local.get $ms)) (local.get $my)) (local.get $ms)) (local.get $mx))
      ;; x, y and z arrive + MB: take MB·(ms² + ms + 1) off (mod 2^32, exact in the end)
      (i32.mul (i32.const 0x4b400000) (i32.add (i32.mul (i32.add (local.get $ms) (i32.const 1)) (local.get $ms)) (i32.const 1))))))
    (local.set $block (i32.shl (i32.and (i32.add (local.get $n) (i32.const 3)) (i32.const -4)) (i32.const 2)))
    (local.set $block2 (i32.shl (local.get $block) (i32.const 1)))
    ;; Chunks of 64 voxels: first all of the chunk in SIMD (rotated; their words, x and mask
    ;; words to dst), then each tested with scalar loads (cheaper than extracting lanes for a
    ;; gather), returning at the first hit. A collision wastes at most a chunk of the first part.
    (block $done
      (loop $chunk
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $end (select (local.get $n) (i32.add (local.get $i) (i32.const 64)) (i32.lt_s (local.get $n) (i32.add (local.get $i) (i32.const 64)))))
        (local.set $p (i32.add (local.get $src) (i32.shl (local.get $i) (i32.const 2))))
        (local.set $q (i32.add (local.get $dst) (i32.shl (local.get $i) (i32.const 2))))
        (local.set $last (i32.add (local.get $dst) (i32.shl (local.get $end) (i32.const 2))))
        (loop $rotate
          (local.set $a (v128.load (local.get $p)))
          (local.set $b (v128.load (i32.add (local.get $p) (local.get $block))))
          (local.set $c (v128.load (i32.add (local.get $p) (i32.shl (local.get $block) (i32.const 1)))))
          ;; about x: y1, z1
          (local.set $y1 (f32x4.sub (f32x4.mul (v128.load offset=0 (local.get $k)) (local.get $b)) (f32x4.mul (v128.load offset=16 (local.get $k)) (local.get $c))))
          (local.set $z1 (f32x4.add (f32x4.mul (v128.load offset=16 (local.get $k)) (local.get $b)) (f32x4.mul (v128.load offset=0 (local.get $k)) (local.get $c))))
          ;; about y: z (final), x2; floor(v + 0.5) + MAGIC: its bits are the integer + MB (cheaper
          ;; than trunc_sat; every constant the integers meet below has - MB folded in)
          (local.set $z (f32x4.add (f32x4.floor (f32x4.add
            (f32x4.sub (f32x4.mul (v128.load offset=32 (local.get $k)) (local.get $z1)) (f32x4.mul (v128.load offset=48 (local.get $k)) (local.get $a))) (v128.load offset=96 (local.get $k)))) (v128.load offset=112 (local.get $k))))
          (local.set $x2 (f32x4.add (f32x4.mul (v128.load offset=48 (local.get $k)) (local.get $z1)) (f32x4.mul (v128.load offset=32 (local.get $k)) (local.get $a))))
          ;; about z: x, y (final)
          (local.set $x (f32x4.add (f32x4.floor (f32x4.add
            (f32x4.sub (f32x4.mul (v128.load offset=64 (local.get $k)) (local.get $x2)) (f32x4.mul (v128.load offset=80 (local.get $k)) (local.get $y1))) (v128.load offset=96 (local.get $k)))) (v128.load offset=112 (local.get $k))))
          (local.set $y (f32x4.add (f32x4.floor (f32x4.add
            (f32x4.add (f32x4.mul (v128.load offset=80 (local.get $k)) (local.get $x2)) (f32x4.mul (v128.load offset=64 (local.get $k)) (local.get $y1))) (v128.load offset=96 (local.get $k)))) (v128.load offset=112 (local.get $k))))
          ;; matrix position: wrap x, y once
          (local.set $X (i32x4.add (local.get $x) (v128.load offset=128 (local.get $k))))
          ;; min_u(v, v - n): v when v < n (v - n is negative, so unsigned huge), else v - n
          (local.set $X (i32x4.min_u (local.get $X) (i32x4.sub (local.get $X) (v128.load offset=176 (local.get $k)))))
          (local.set $Y (i32x4.add (local.get $y) (v128.load offset=144 (local.get $k))))
          (local.set $Y (i32x4.min_u (local.get $Y) (i32x4.sub (local.get $Y) (v128.load offset=192 (local.get $k)))))
          (local.set $Z (i32x4.add (local.get $z) (v128.load offset=160 (local.get $k))))
          ;; W: the word's byte address, or the all-ones word right after the matrix for z outside
          ;; the box (always a hit: no own voxel lies outside, so the mask bit there is 0): below
          ;; the box the address is negative (unsigned: huge), above it at least the matrix's size
          ;; (the all-ones word's address) or, in the bricks' top layer, a solid padding plane, so
          ;; an unsigned min picks that word in both cases
          (v128.store (local.get $q) (i32x4.min_u
            (i32x4.add
              (i32x4.add
                (i32x4.add
                  (i32x4.mul (i32x4.shr_s (local.get $Z) (global.get $zShift)) (v128.load offset=224 (local.get $k)))
                  (i32x4.mul (i32x4.shr_u (local.get $Y) (global.get $yShift)) (v128.load offset=240 (local.get $k))))
                (i32x4.shl (i32x4.shr_u (local.get $X) (global.get $xShift)) (global.get $xUp)))
              (i32x4.add
                (i32x4.shl (v128.and (local.get $Z) (v128.load offset=304 (local.get $k))) (i32.const 3))
                (v128.and (local.get $Y) (v128.load offset=320 (local.get $k)))))
            (v128.load offset=208 (local.get $k))))
          ;; the bit (the scalar loops shift by it mod 32)
          (v128.store (i32.add (local.get $q) (local.get $block))
            (i32x4.add (i32x4.shl (local.get $Y) (global.get $yBitShift)) (v128.and (local.get $X) (v128.load offset=336 (local.get $k)))))
          (v128.store (i32.add (local.get $q) (local.get $block2)) (i32x4.add
            (i32x4.add (i32x4.mul (local.get $z) (v128.load offset=256 (local.get $k))) (i32x4.mul (local.get $y) (v128.load offset=272 (local.get $k))))
            (i32x4.add (local.get $x) (v128.load offset=288 (local.get $k)))))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (local.set $q (i32.add (local.get $q) (i32.const 16)))
          (br_if $rotate (i32.lt_u (local.get $q) (local.get $last))))
        ;; A hit: bit 0 of (matrix word >> bit) & ~(mask word >> mask bit), the voxel's bit set in the
        ;; matrix and not in the self mask. Four voxels at a time, one branch for the four (the
        ;; lanes past n repeat voxel n - 1, so a group holds no stale voxel).
        (local.set $q (i32.add (local.get $dst) (i32.shl (local.get $i) (i32.const 2))))
        (loop $check
          (if (i32.and (i32.const 1) (i32.or
                (i32.or
                  (local.tee $h0 (i32.and
                    (i32.shr_u (i32.load (i32.load (local.get $q))) (i32.load offset=0 (i32.add (local.get $q) (local.get $block))))
                    (i32.xor (i32.shr_u (i32.load (i32.add (local.get $mw) (i32.shl (i32.shr_u (local.tee $m (i32.load offset=0 (i32.add (local.get $q) (local.get $block2)))) (i32.const 5)) (i32.const 2))))
                      (local.get $m)) (i32.const -1))))
                  (local.tee $h1 (i32.and
                    (i32.shr_u (i32.load (i32.load (i32.add (local.get $q) (i32.const 4)))) (i32.load offset=4 (i32.add (local.get $q) (local.get $block))))
                    (i32.xor (i32.shr_u (i32.load (i32.add (local.get $mw) (i32.shl (i32.shr_u (local.tee $m (i32.load offset=4 (i32.add (local.get $q) (local.get $block2)))) (i32.const 5)) (i32.const 2))))
                      (local.get $m)) (i32.const -1)))))
                (i32.or
                  (local.tee $h2 (i32.and
                    (i32.shr_u (i32.load (i32.load (i32.add (local.get $q) (i32.const 8)))) (i32.load offset=8 (i32.add (local.get $q) (local.get $block))))
                    (i32.xor (i32.shr_u (i32.load (i32.add (local.get $mw) (i32.shl (i32.shr_u (local.tee $m (i32.load offset=8 (i32.add (local.get $q) (local.get $block2)))) (i32.const 5)) (i32.const 2))))
                      (local.get $m)) (i32.const -1))))
                  (local.tee $h3 (i32.and
                    (i32.shr_u (i32.load (i32.load (i32.add (local.get $q) (i32.const 12)))) (i32.load offset=12 (i32.add (local.get $q) (local.get $block))))
                    (i32.xor (i32.shr_u (i32.load (i32.add (local.get $mw) (i32.shl (i32.shr_u (local.tee $m (i32.load offset=12 (i32.add (local.get $q) (local.get $block2)))) (i32.const 5)) (i32.const 2))))
                      (local.get $m)) (i32.const -1)))))))
            (then (return (i32.add (i32.shr_u (i32.sub (local.get $q) (local.get $dst)) (i32.const 2))
              ;; the first of the four that hits
              (i32.ctz (i32.and (i32.const 15) (i32.or
                (i32.or (i32.and (local.get $h0) (i32.const 1)) (i32.shl (i32.and (local.get $h1) (i32.const 1)) (i32.const 1)))
                (i32.or (i32.shl (i32.and (local.get $h2) (i32.const 1)) (i32.const 2)) (i32.shl (local.get $h3) (i32.const 3))))))))))
          (local.set $q (i32.add (local.get $q) (i32.const 16)))
          (br_if $check (i32.lt_u (local.get $q) (local.get $last))))
        (local.set $i (local.get $end))
        (br $chunk)))
    (i32.const -1))

  ;; Writes a particle at the voxels `test` left at new (n of them, all free): clears its voxels at
  ;; old first (old = 0: a new particle), empties its self mask (maskBytes at mask), then sets the
  ;; new voxels and marks them in the mask, each mask bit moved by delta into the cube of the new
  ;; centre. Emptying the mask in one memory.fill beats a store per old voxel (the cube is small).
  ;; Scalar: two voxels may share a word.
  (func (export "move") (param $n i32) (param $old i32) (param $new i32) (param $mask i32) (param $maskBytes i32) (param $delta i32)
    (local $block i32) (local $p i32) (local $end i32) (local $w i32) (local $m i32) (local $b i32)
    (local.set $block (i32.shl (i32.and (i32.add (local.get $n) (i32.const 3)) (i32.const -4)) (i32.const 2)))
    (if (local.get $old)
      (then
        (local.set $p (local.get $old))
        (local.set $end (i32.add (local.get $old) (i32.shl (local.get $n) (i32.const 2))))
        (block $cleared
          (loop $clear
            (br_if $cleared (i32.ge_u (local.get $p) (local.get $end)))
            (local.set $w (i32.load (local.get $p)))
            (i32.store (local.get $w) (i32.and (i32.load (local.get $w))
              (i32.rotl (i32.const -2) (i32.load (i32.add (local.get $p) (local.get $block))))))
            (local.set $p (i32.add (local.get $p) (i32.const 4)))
            (br $clear)))))
    (memory.fill (local.get $mask) (i32.const 0) (local.get $maskBytes))
    (local.set $p (local.get $new))
    (local.set $end (i32.add (local.get $new) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $w (i32.load (local.get $p)))
        (i32.store (local.get $w) (i32.or (i32.load (local.get $w))
          (i32.shl (i32.const 1) (i32.load (i32.add (local.get $p) (local.get $block))))))
        (local.set $m (i32.sub (i32.load (i32.add (local.get $p) (i32.shl (local.get $block) (i32.const 1)))) (local.get $delta)))
        (local.set $w (i32.add (local.get $mask) (i32.shl (i32.shr_u (local.get $m) (i32.const 5)) (i32.const 2))))
        (i32.store (local.get $w) (i32.or (i32.load (local.get $w)) (i32.shl (i32.const 1) (local.get $m))))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br $next)))))
