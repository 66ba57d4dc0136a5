/** Rotation matrix Rz(c) Ry(b) Rx(a) (angles in degrees, row-major), written here independently of the engine's tables: the tests' reference. */
export function rotation(a: number, b: number, c: number): number[] {
  const r = Math.PI / 180;
  const [ca, sa, cb, sb, cc, sc] = [Math.cos(a * r), Math.sin(a * r), Math.cos(b * r), Math.sin(b * r), Math.cos(c * r), Math.sin(c * r)];
  return [
    cc * cb, cc * sb * sa - sc * ca, cc * sb * ca + sc * sa,
    sc * cb, sc * sb * sa + cc * ca, sc * sb * ca - cc * sa,
    -sb, cb * sa, cb * ca,
  ];
}
