import { stripPlural } from './stemmers.js';
import { fold } from './words.js';

// Spanish words that name what business and site documents are about, with an English
// rendering, so that the English index card of a Spanish source names its subjects.
const ENTRIES = `
precio:prices tarifa:rates coste:costs costo:costs presupuesto:quotes descuento:discounts oferta:offers
promocion:promotions pago:payments factura:invoices impuesto:taxes iva:VAT tarjeta:cards efectivo:cash
transferencia:transfers reembolso:refunds devolucion:returns garantia:warranty envio:shipping entrega:delivery
pedido:orders compra:purchases venta:sales tienda:shop producto:products servicio:services catalogo:catalogue
stock:stock inventario:inventory talla:sizes tamano:sizes medida:measurements peso:weight material:materials
horario:opening-hours apertura:opening cierre:closing festivo:holidays vacacion:holidays
reserva:bookings cita:appointments consulta:consultations cancelacion:cancellations suscripcion:subscriptions
plan:plans cuenta:accounts usuario:users contrasena:passwords acceso:access registro:registration
soporte:support ayuda:help pregunta:questions respuesta:answers duda:questions contacto:contact
telefono:phone correo:email direccion:address ubicacion:location mapa:map llegar:directions
aparcamiento:parking parking:parking transporte:transport metro:metro autobus:buses
menu:menu carta:menu plato:dishes bebida:drinks vino:wine cerveza:beer cafe:coffee postre:desserts
desayuno:breakfast comida:food almuerzo:lunch cena:dinner ingrediente:ingredients alergeno:allergens
vegano:vegan vegetariano:vegetarian receta:recipes cocina:kitchen restaurante:restaurant bar:bar
habitacion:rooms alojamiento:accommodation hotel:hotel viaje:travel vuelo:flights excursion:excursions
curso:courses clase:classes alumno:students estudiante:students profesor:teachers formacion:training
taller:workshops matricula:enrolment beca:scholarships examen:exams
empresa:company equipo:team empleo:jobs trabajo:work puesto:positions candidato:candidates
politica:policies privacidad:privacy cookie:cookies condicion:conditions termino:terms legal:legal
seguridad:security dato:data proteccion:protection
salud:health medico:doctors clinica:clinic tratamiento:treatments paciente:patients dental:dental
farmacia:pharmacy terapia:therapy
abogado:lawyers seguro:insurance alquiler:rentals hipoteca:mortgages inmueble:properties vivienda:housing
piso:flats casa:houses
instalacion:installation mantenimiento:maintenance reparacion:repairs averia:faults
evento:events entrada:tickets concierto:concerts exposicion:exhibitions visita:visits guia:guides
mascota:pets perro:dogs gato:cats veterinario:vets
nino:children familia:families grupo:groups socio:members miembro:members comunidad:community
donacion:donations voluntario:volunteers
idioma:languages web:website pagina:pages aplicacion:apps descarga:downloads documento:documents
formulario:forms solicitud:applications requisito:requirements beneficio:benefits ventaja:advantages
caracteristica:features funcion:features proyecto:projects diseno:design publicidad:advertising
noticia:news historia:history mision:mission valor:values calidad:quality experiencia:experience
opinion:reviews resena:reviews valoracion:ratings cliente:customers proveedor:suppliers
agua:water leche:milk azucar:sugar gramo:grams kilo:kilos litro:litres temperatura:temperature tiempo:time
molienda:grinding molino:grinders filtro:filters metodo:methods preparacion:brewing extraccion:extraction
tueste:roasting tostadero:roastery grano:beans origen:origins finca:farms granja:farms cosecha:harvests
variedad:varieties proceso:processing sabor:flavours aroma:aromas nota:notes mezcla:blends receta:recipes
paquete:parcels seguimiento:tracking plazo:deadlines importe:amounts abono:refunds cambio:exchanges
sede:offices oficina:offices local:premises barra:bars sucursal:branches almacen:warehouses
persona:people nino:children adulto:adults mayor:seniors edad:ages
coche:cars bicicleta:bikes vehiculo:vehicles taller:workshops pieza:parts neumatico:tyres
ropa:clothing zapato:shoes calzado:footwear joya:jewellery regalo:gifts tarjeta-regalo:gift-cards
libro:books musica:music pelicula:films juego:games deporte:sports gimnasio:gym entrenamiento:training
jardin:gardens planta:plants flor:flowers piscina:pools limpieza:cleaning
`;

const GLOSSARY: ReadonlyMap<string, string> = new Map(
  ENTRIES.trim()
    .split(/\s+/)
    .map((entry) => {
      const [es = '', en = ''] = entry.split(':');
      return [stripPlural(fold(es)), en.replace(/-/g, ' ')] as const;
    }),
);

/** The English for a Spanish word of the glossary (any accents, singular or plural). */
export function toEnglish(word: string): string | undefined {
  const folded = fold(word);
  // Spanish plurals in -es (`devoluciones`) lose two letters, not one.
  return GLOSSARY.get(stripPlural(folded)) ?? (folded.endsWith('es') ? GLOSSARY.get(folded.slice(0, -2)) : undefined);
}
