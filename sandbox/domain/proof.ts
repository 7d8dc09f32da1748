import type { OrderRecipient } from "../../provider/api/schemas";
import type { OrderRow } from "../storage/rows";

/**
 * A real proof PDF: one 6x4 in page (the postcard) with the design's name, the handwriting style,
 * the recipient's merge fields and address block, and the QR target when the order keeps a QR code.
 * pdf-lib is loaded on first use so that the sandbox starts quickly.
 */
export async function renderProof(order: OrderRow, recipient: OrderRecipient): Promise<Buffer> {
  const { PDFDocument, StandardFonts, rgb } = await import("pdf-lib");
  const doc = await PDFDocument.create();
  doc.setTitle(`Proof of order ${order.id}, recipient ${recipient.id}`);
  doc.setSubject(`${order.product}: ${order.name}`);
  doc.setProducer("directmail sandbox");
  doc.setCreator("directmail sandbox");
  // A fixed date keeps the bytes of a proof the same for the same order and recipient.
  doc.setCreationDate(new Date(Date.parse(order.created)));
  doc.setModificationDate(new Date(Date.parse(order.created)));
  const page = doc.addPage([432, 288]);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const script = await doc.embedFont(StandardFonts.TimesRomanItalic);
  // Standard fonts speak WinAnsi only: anything else is shown as '?' rather than failing the proof.
  const safe = (text: string) => text.replace(/[^\x20-\x7e\xa0-\xff]/g, "?");
  const draw = (text: string, x: number, y: number, size: number, font = regular) =>
    page.drawText(safe(text), { x, y, size, font, color: rgb(0.1, 0.1, 0.1) });

  page.drawRectangle({
    x: 4,
    y: 4,
    width: 424,
    height: 280,
    borderColor: rgb(0.6, 0.6, 0.6),
    borderWidth: 1,
  });
  draw(`PROOF  order ${order.id}  recipient ${recipient.id}`, 12, 270, 8, bold);
  draw(`${order.product} / ${order.name} / font: ${order.font ?? "template default"}`, 12, 260, 7);

  const p = recipient.personal;
  const m = recipient.metadata;
  const greeting = m.salutation ?? p.salutation ?? `Dear ${p.firstName ?? p.toOrganization ?? "Neighbor"}`;
  // The message is written in the left half, wrapped by words; what does not fit is cut with "...".
  const wrap = (text: string, size: number, width: number): string[] => {
    const lines: string[] = [];
    let line = "";
    for (const word of safe(text).split(/\s+/).filter(Boolean)) {
      const candidate = line ? `${line} ${word}` : word;
      if (line && script.widthOfTextAtSize(candidate, size) > width) {
        lines.push(line);
        line = word;
      } else {
        line = candidate;
      }
    }
    if (line) lines.push(line);
    return lines;
  };
  let y = 230;
  draw(`${greeting},`, 16, y, 13, script);
  const message: string[] = [];
  for (const field of ["text", "text2"] as const) {
    const value = m[field];
    if (value) message.push(...wrap(value, 11, 200));
  }
  // A template prints the merge fields its design uses (its merge-field list), no others: data a
  // list carries for other purposes, such as the provider's identity keys, never reaches the card.
  const printed = new Set(JSON.parse(order.required_merge_fields) as string[]);
  for (const field of ["custom1", "custom2", "custom3", "custom4", "custom5", "custom6"] as const) {
    const value = m[field];
    if (value && printed.has(field)) message.push(...wrap(`${field}: ${value}`, 11, 200));
  }
  const room = Math.floor((y - 70) / 15);
  message.slice(0, room).forEach((line, i) => {
    draw(i === room - 1 && message.length > room ? `${line} ...` : line, 16, y - 16 - i * 15, 11, script);
  });
  y -= 16 * Math.min(room, message.length);

  // Address block, right half, as the carrier reads it.
  const a = recipient.address;
  const name = [p.firstName, p.lastName].filter(Boolean).join(" ");
  const lines = [
    name,
    p.toOrganization ?? "",
    [a.address1, a.address2].filter(Boolean).join(" "),
    `${a.city ?? ""}, ${a.state ?? ""} ${a.zipCode ?? ""}${a.zip4 ? `-${a.zip4}` : ""}`,
  ].filter((l) => l.trim() !== "");
  lines.forEach((line, i) => {
    draw(line, 236, 120 - i * 12, 10, i === 0 ? bold : regular);
  });

  if (m.returnAddress1) {
    const ret = [
      [m.returnFirstName, m.returnLastName].filter(Boolean).join(" ") || m.returnOrganization || "",
      [m.returnAddress1, m.returnAddress2].filter(Boolean).join(" "),
      `${m.returnCity ?? ""}, ${m.returnState ?? ""} ${m.returnZip ?? ""}`,
    ].filter((l) => l.trim() !== "");
    ret.forEach((line, i) => {
      draw(line, 236, 250 - i * 9, 7);
    });
  }
  if (order.has_qr) {
    page.drawRectangle({ x: 16, y: 16, width: 40, height: 40, borderColor: rgb(0, 0, 0), borderWidth: 1 });
    draw("QR", 28, 32, 10, bold);
    draw(`QR: ${m.qrUrl ?? order.qr_url ?? ""}`, 62, 32, 7);
  }
  const images = (["image1", "image2", "image3", "image4", "image5", "image6"] as const).filter((f) => m[f]);
  if (images.length) draw(`images: ${images.map((f) => `${f}=${m[f]}`).join(" ")}`, 16, 8, 5);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}
